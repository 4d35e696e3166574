/* placeholder: being written */
typedef int qr_placeholder_image;
