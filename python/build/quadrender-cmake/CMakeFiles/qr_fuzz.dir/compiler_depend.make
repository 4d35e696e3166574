# Empty custom commands generated dependencies file for qr_fuzz.
# This may be replaced when dependencies are built.
