/* json_find.h — a small JSON reader for the tests: validates a whole text
 * as one JSON value and finds one value in it by its path, keys and array
 * indexes joined by dots ("tree.leaves", "tree.leaves_per_depth.0"). */
#ifndef QR_TEST_JSON_FIND_H
#define QR_TEST_JSON_FIND_H

/* Where the value at `path` starts in text (NULL if absent); asserts the
 * text is one valid JSON value. */
const char *json_find(const char *text, const char *path);

/* The number at `path`; asserts it is there and is a number. */
double json_number(const char *text, const char *path);

#endif
