# Empty dependencies file for qr_test_support.
# This may be replaced when dependencies are built.
