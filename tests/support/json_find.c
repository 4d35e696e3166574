/* json_find.c — see json_find.h. */
#include "json_find.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct json_cursor {
    const char *p;
    const char *want;  /* path looked for */
    const char *found; /* where its value starts */
} json_cursor;

static void json_ws(json_cursor *c)
{
    while (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r')
        c->p++;
}

static bool json_string(json_cursor *c)
{
    if (*c->p != '"')
        return false;
    for (c->p++; *c->p && *c->p != '"'; c->p++) {
        if ((unsigned char)*c->p < 0x20)
            return false;
        if (*c->p == '\\' && !*++c->p)
            return false;
    }
    if (*c->p != '"')
        return false;
    c->p++;
    return true;
}

static bool json_value(json_cursor *c, const char *path)
{
    json_ws(c);
    if (strcmp(path, c->want) == 0)
        c->found = c->p;
    char sub[256];
    if (*c->p == '{' || *c->p == '[') {
        bool object = *c->p == '{';
        char close = object ? '}' : ']';
        c->p++;
        json_ws(c);
        if (*c->p == close) {
            c->p++;
            return true;
        }
        for (int i = 0;; i++) {
            if (object) {
                json_ws(c);
                const char *key = c->p;
                if (!json_string(c))
                    return false;
                snprintf(sub, sizeof sub, "%s%s%.*s", path, path[0] ? "." : "",
                         (int)(c->p - key - 2), key + 1);
                json_ws(c);
                if (*c->p++ != ':')
                    return false;
            } else {
                snprintf(sub, sizeof sub, "%s%s%d", path, path[0] ? "." : "", i);
            }
            if (!json_value(c, sub))
                return false;
            json_ws(c);
            if (*c->p == ',') {
                c->p++;
                continue;
            }
            return *c->p++ == close;
        }
    }
    if (*c->p == '"')
        return json_string(c);
    const char *words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++)
        if (strncmp(c->p, words[k], strlen(words[k])) == 0) {
            c->p += strlen(words[k]);
            return true;
        }
    /* a number: strtod also takes "inf" and "nan", which JSON does not */
    if (*c->p != '-' && (*c->p < '0' || *c->p > '9'))
        return false;
    char *end;
    strtod(c->p, &end);
    c->p = end;
    return true;
}

const char *json_find(const char *text, const char *path)
{
    json_cursor c = {text, path, NULL};
    bool ok = json_value(&c, "");
    json_ws(&c);
    cr_assert(ok && *c.p == '\0', "invalid JSON near '%.30s':\n%s", c.p, text);
    return c.found;
}

double json_number(const char *text, const char *path)
{
    const char *v = json_find(text, path);
    cr_assert(v, "no %s in:\n%s", path, text);
    cr_assert(*v == '-' || (*v >= '0' && *v <= '9'), "%s is not a number: %.20s", path, v);
    return strtod(v, NULL);
}

