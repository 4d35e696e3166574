# Empty dependencies file for test_cli_signals.
# This may be replaced when dependencies are built.
