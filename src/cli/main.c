typedef int qr_placeholder_main;
int main(void) { return 0; }
