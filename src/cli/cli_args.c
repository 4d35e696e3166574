typedef int qr_placeholder_cli_args;
