# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for qr_test_support.
