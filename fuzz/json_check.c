/* json_check.c — see json_check.h. Recursive descent; depth is bounded. */
#include "json_check.h"

#include <string.h>

typedef struct json_in {
    const unsigned char *p, *end;
    int depth;
} json_in;

static void skip_ws(json_in *in)
{
    while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' || *in->p == '\n' || *in->p == '\r'))
        in->p++;
}

static int digits(json_in *in)
{
    const unsigned char *start = in->p;
    while (in->p < in->end && *in->p >= '0' && *in->p <= '9') in->p++;
    return in->p > start;
}

static int number(json_in *in)
{
    if (in->p < in->end && *in->p == '-') in->p++;
    if (in->p < in->end && *in->p == '0')
        in->p++;
    else if (!digits(in))
        return 0;
    if (in->p < in->end && *in->p == '.') {
        in->p++;
        if (!digits(in)) return 0;
    }
    if (in->p < in->end && (*in->p == 'e' || *in->p == 'E')) {
        in->p++;
        if (in->p < in->end && (*in->p == '+' || *in->p == '-')) in->p++;
        if (!digits(in)) return 0;
    }
    return 1;
}

/* One UTF-8 sequence (no overlongs, surrogates or values past U+10FFFF). */
static int utf8(json_in *in)
{
    const unsigned char c = *in->p;
    int more;
    unsigned min;
    unsigned cp;
    if (c < 0x80) {
        in->p++;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        more = 1, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        more = 2, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        more = 3, min = 0x10000, cp = c & 0x07;
    } else {
        return 0;
    }
    if (in->end - in->p <= more) return 0;
    for (int k = 1; k <= more; k++) {
        if ((in->p[k] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (in->p[k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    in->p += more + 1;
    return 1;
}

static int string(json_in *in)
{
    in->p++; /* the opening quote */
    while (in->p < in->end) {
        const unsigned char c = *in->p;
        if (c == '"') {
            in->p++;
            return 1;
        }
        if (c < 0x20) return 0;
        if (c == '\\') {
            in->p++;
            if (in->p >= in->end) return 0;
            const unsigned char e = *in->p++;
            if (e == 'u') {
                for (int k = 0; k < 4; k++, in->p++)
                    if (in->p >= in->end || !strchr("0123456789abcdefABCDEF", *in->p) || !*in->p) return 0;
            } else if (!strchr("\"\\/bfnrt", e) || !e) {
                return 0;
            }
            continue;
        }
        if (!utf8(in)) return 0;
    }
    return 0;
}

static int literal(json_in *in, const char *word)
{
    const size_t n = strlen(word);
    if ((size_t)(in->end - in->p) < n || memcmp(in->p, word, n) != 0) return 0;
    in->p += n;
    return 1;
}

static int value(json_in *in);

static int members(json_in *in, char close, int keyed)
{
    in->p++; /* the opening bracket */
    skip_ws(in);
    if (in->p < in->end && *in->p == close) {
        in->p++;
        return 1;
    }
    for (;;) {
        skip_ws(in);
        if (keyed) {
            if (in->p >= in->end || *in->p != '"' || !string(in)) return 0;
            skip_ws(in);
            if (in->p >= in->end || *in->p != ':') return 0;
            in->p++;
        }
        if (!value(in)) return 0;
        skip_ws(in);
        if (in->p >= in->end) return 0;
        if (*in->p == close) {
            in->p++;
            return 1;
        }
        if (*in->p != ',') return 0;
        in->p++;
    }
}

static int value(json_in *in)
{
    skip_ws(in);
    if (in->p >= in->end || ++in->depth > 64) return 0;
    int ok;
    switch (*in->p) {
    case '{': ok = members(in, '}', 1); break;
    case '[': ok = members(in, ']', 0); break;
    case '"': ok = string(in); break;
    case 't': ok = literal(in, "true"); break;
    case 'f': ok = literal(in, "false"); break;
    case 'n': ok = literal(in, "null"); break;
    default: ok = number(in); break;
    }
    in->depth--;
    return ok;
}

int json_well_formed(const char *text, size_t len)
{
    json_in in = {(const unsigned char *)text, (const unsigned char *)text + len, 0};
    if (!value(&in)) return 0;
    skip_ws(&in);
    return in.p == in.end;
}
