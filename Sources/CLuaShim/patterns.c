// Lua 5.4's string patterns (reference manual §6.4.1) behind `string.find`, `match`,
// `gmatch` and `gsub` in a confined state. A count hook never fires inside a C function, so
// the stock matcher can backtrack for minutes past every budget; this one counts its
// matching steps and charges them to the state's budget every PM_CHECK_STEPS steps
// (`lrt_charge`), ending in the same sticky kill as the hook. Results and error messages
// are those of the stock functions: Tests/LuaRuntimeTests/PatternTests.swift compares
// both on thousands of generated patterns.
//
// The matcher interprets the pattern as it goes: a malformed item is reported only when
// matching reaches it, and nesting (captures, quantified items) is limited to
// PM_MAX_DEPTH calls, as in stock Lua, so the same patterns fail with the same errors.

#include "CLuaShim.h"
#include "internal.h"

#include <ctype.h>
#include <string.h>

#define PM_ESCAPE '%'
/// Captures per pattern (stock Lua's LUA_MAXCAPTURES).
#define PM_MAX_CAPTURES 32
/// Nested matching calls before "pattern too complex" (stock Lua's MAXCCALLS).
#define PM_MAX_DEPTH 200
/// Matching steps between two budget checks.
#define PM_CHECK_STEPS 4096
/// The length of a capture opened and not yet closed.
#define PM_OPEN (-1)
/// The length of a position capture `()`.
#define PM_POSITION (-2)

typedef struct pm_capture {
    const char *start;
    ptrdiff_t length;  ///< PM_OPEN, PM_POSITION or the captured length
} pm_capture;

typedef struct pm_matcher {
    lua_State *L;
    const char *subject;
    const char *subject_end;
    const char *pattern_end;
    int depth_left;
    int captures;
    lrt_meter meter;
    pm_capture capture[PM_MAX_CAPTURES];
} pm_matcher;

// MARK: - Budget

static void pm_begin(pm_matcher *m, lua_State *L, const char *subject, size_t subject_length, const char *pattern,
                     size_t pattern_length) {
    m->L = L;
    m->subject = subject;
    m->subject_end = subject + subject_length;
    m->pattern_end = pattern + pattern_length;
    m->meter = lrt_meter_start(L, PM_CHECK_STEPS);
    m->captures = 0;
    m->depth_left = PM_MAX_DEPTH;
}

/// Before each attempt at a new subject position.
static void pm_restart(pm_matcher *m) {
    m->captures = 0;
    m->depth_left = PM_MAX_DEPTH;
}

static void pm_spend(pm_matcher *m, long long steps) { lrt_meter_spend(&m->meter, steps); }

/// Counts the steps since the last check without checking (the next check sees them).
static void pm_finish(pm_matcher *m) { lrt_meter_finish(&m->meter); }

// MARK: - Single characters

/// Whether `c` is in the class `%<letter>`; an upper-case letter is the complement, any
/// other character stands for itself.
static int pm_in_class(int c, int letter) {
    int found;
    switch (tolower(letter)) {
        case 'a': found = isalpha(c); break;
        case 'c': found = iscntrl(c); break;
        case 'd': found = isdigit(c); break;
        case 'g': found = isgraph(c); break;
        case 'l': found = islower(c); break;
        case 'p': found = ispunct(c); break;
        case 's': found = isspace(c); break;
        case 'u': found = isupper(c); break;
        case 'w': found = isalnum(c); break;
        case 'x': found = isxdigit(c); break;
        case 'z': found = c == '\0'; break;  // not in the manual since 5.2, still in stock Lua
        default: return letter == c;
    }
    return isupper(letter) ? !found : found != 0;
}

/// Whether `c` is in the set that opens at `open` (`[`) and closes at `close` (`]`).
static int pm_in_set(int c, const char *open, const char *close) {
    const char *p = open + 1;
    int member = 1;
    if (*p == '^') {
        member = 0;
        p++;
    }
    for (; p < close; p++) {
        if (*p == PM_ESCAPE) {
            p++;
            if (pm_in_class(c, (unsigned char)*p)) return member;
        } else if (p[1] == '-' && p + 2 < close) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return member;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return member;
        }
    }
    return !member;
}

/// The end of the single-character class that starts at `p` (where a quantifier may follow).
static const char *pm_item_end(pm_matcher *m, const char *p) {
    char first = *p++;
    if (first == PM_ESCAPE) {
        if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (first != '[') return p;
    if (p < m->pattern_end && *p == '^') p++;
    do {  // the first character of a set is a member even when it is ']'
        if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing ']')");
        char c = *p++;
        if (c == PM_ESCAPE && p < m->pattern_end) p++;
    } while (p >= m->pattern_end || *p != ']');
    return p + 1;
}

/// Whether the subject character at `s` matches the class from `p` to `end`.
static int pm_single(const pm_matcher *m, const char *s, const char *p, const char *end) {
    if (s >= m->subject_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
        case '.': return 1;
        case PM_ESCAPE: return pm_in_class(c, (unsigned char)p[1]);
        case '[': return pm_in_set(c, p, end - 1);
        default: return (unsigned char)*p == c;
    }
}

// MARK: - Matching

static const char *pm_match(pm_matcher *m, const char *s, const char *p);

/// `%bxy` at `p` (pointing at `x`): a balanced run from `x` to its `y`.
static const char *pm_balanced(pm_matcher *m, const char *s, const char *p) {
    if (p >= m->pattern_end - 1) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->subject_end || *s != p[0]) return NULL;
    const char *start = s;
    int depth = 1;
    while (++s < m->subject_end) {
        if (*s == p[1]) {
            if (--depth == 0) {
                pm_spend(m, s - start);
                return s + 1;
            }
        } else if (*s == p[0]) {
            depth++;
        }
    }
    pm_spend(m, s - start);
    return NULL;
}

/// The index of the capture a back-reference or replacement digit names.
static int pm_capture_index(pm_matcher *m, int digit) {
    int index = digit - '1';
    if (index < 0 || index >= m->captures || m->capture[index].length == PM_OPEN) {
        luaL_error(m->L, "invalid capture index %%%d", index + 1);
    }
    return index;
}

/// `%1`-`%9`: the same text as the capture again.
static const char *pm_back_reference(pm_matcher *m, const char *s, int digit) {
    const pm_capture *capture = &m->capture[pm_capture_index(m, digit)];
    if (capture->length < 0) return NULL;  // a position capture holds no text
    size_t length = (size_t)capture->length;
    pm_spend(m, 1 + (long long)(length / 16));
    if ((size_t)(m->subject_end - s) < length || memcmp(capture->start, s, length) != 0) return NULL;
    return s + length;
}

static const char *pm_open_capture(pm_matcher *m, const char *s, const char *p, ptrdiff_t kind) {
    if (m->captures >= PM_MAX_CAPTURES) luaL_error(m->L, "too many captures");
    m->capture[m->captures].start = s;
    m->capture[m->captures].length = kind;
    m->captures++;
    const char *end = pm_match(m, s, p);
    if (end == NULL) m->captures--;
    return end;
}

static const char *pm_close_capture(pm_matcher *m, const char *s, const char *p) {
    int index = m->captures - 1;
    while (index >= 0 && m->capture[index].length != PM_OPEN) index--;
    if (index < 0) {
        luaL_error(m->L, "invalid pattern capture");
        return NULL;
    }
    m->capture[index].length = s - m->capture[index].start;
    const char *end = pm_match(m, s, p);
    if (end == NULL) m->capture[index].length = PM_OPEN;
    return end;
}

/// `x*` (and the rest of `x+`): the longest run first, then shorter ones.
static const char *pm_longest(pm_matcher *m, const char *s, const char *p, const char *item_end) {
    ptrdiff_t count = 0;
    while (pm_single(m, s + count, p, item_end)) count++;
    pm_spend(m, count);
    for (; count >= 0; count--) {
        const char *end = pm_match(m, s + count, item_end + 1);
        if (end != NULL) return end;
    }
    return NULL;
}

/// `x-`: the shortest run first, then longer ones.
static const char *pm_shortest(pm_matcher *m, const char *s, const char *p, const char *item_end) {
    for (;;) {
        const char *end = pm_match(m, s, item_end + 1);
        if (end != NULL) return end;
        if (!pm_single(m, s, p, item_end)) return NULL;
        s++;
    }
}

/// Matches the pattern from `p` against the subject from `s`: the end of the match, or
/// NULL. Items that need no backtracking are matched in the loop; the rest nest.
static const char *pm_match(pm_matcher *m, const char *s, const char *p) {
    if (m->depth_left-- == 0) luaL_error(m->L, "pattern too complex");
    for (;;) {
        pm_spend(m, 1);
        if (p == m->pattern_end) break;
        if (*p == '(') {
            if (p + 1 < m->pattern_end && p[1] == ')') {
                s = pm_open_capture(m, s, p + 2, PM_POSITION);
            } else {
                s = pm_open_capture(m, s, p + 1, PM_OPEN);
            }
            break;
        }
        if (*p == ')') {
            s = pm_close_capture(m, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == m->pattern_end) {
            if (s != m->subject_end) s = NULL;
            break;
        }
        if (*p == PM_ESCAPE && p + 1 < m->pattern_end) {
            char kind = p[1];
            if (kind == 'b') {
                s = pm_balanced(m, s, p + 2);
                if (s == NULL) break;
                p += 4;
                continue;
            }
            if (kind == 'f') {
                p += 2;
                if (p >= m->pattern_end || *p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
                const char *set_end = pm_item_end(m, p);
                int before = s == m->subject ? '\0' : (unsigned char)s[-1];
                int at = s < m->subject_end ? (unsigned char)*s : '\0';
                if (pm_in_set(before, p, set_end - 1) || !pm_in_set(at, p, set_end - 1)) {
                    s = NULL;
                    break;
                }
                p = set_end;
                continue;
            }
            if (kind >= '0' && kind <= '9') {
                s = pm_back_reference(m, s, (unsigned char)kind);
                if (s == NULL) break;
                p += 2;
                continue;
            }
        }
        // A single-character class with an optional quantifier.
        const char *item_end = pm_item_end(m, p);
        char quantifier = item_end < m->pattern_end ? *item_end : '\0';
        if (!pm_single(m, s, p, item_end)) {
            if (quantifier == '*' || quantifier == '?' || quantifier == '-') {
                p = item_end + 1;  // zero repetitions
                continue;
            }
            s = NULL;
            break;
        }
        if (quantifier == '?') {
            const char *end = pm_match(m, s + 1, item_end + 1);
            if (end != NULL) {
                s = end;
                break;
            }
            p = item_end + 1;
            continue;
        }
        if (quantifier == '+' || quantifier == '*') {
            s = pm_longest(m, quantifier == '+' ? s + 1 : s, p, item_end);
            break;
        }
        if (quantifier == '-') {
            s = pm_shortest(m, s, p, item_end);
            break;
        }
        s++;
        p = item_end;
    }
    m->depth_left++;
    return s;
}

// MARK: - Captures

/// The text of capture `index` (the whole match `s`..`e` when the pattern has none): sets
/// `*text` and returns its length; a position capture pushes its position and returns
/// PM_POSITION.
static ptrdiff_t pm_capture_text(pm_matcher *m, int index, const char *s, const char *e, const char **text) {
    if (index >= m->captures) {
        if (index != 0) luaL_error(m->L, "invalid capture index %%%d", index + 1);
        *text = s;
        return e - s;
    }
    const pm_capture *capture = &m->capture[index];
    *text = capture->start;
    if (capture->length == PM_OPEN) luaL_error(m->L, "unfinished capture");
    if (capture->length == PM_POSITION) lua_pushinteger(m->L, (capture->start - m->subject) + 1);
    return capture->length;
}

static void pm_push_capture(pm_matcher *m, int index, const char *s, const char *e) {
    const char *text;
    ptrdiff_t length = pm_capture_text(m, index, s, e, &text);
    if (length != PM_POSITION) lua_pushlstring(m->L, text, (size_t)length);
}

/// Pushes every capture (the whole match when there is none and `s` is given).
static int pm_push_captures(pm_matcher *m, const char *s, const char *e) {
    int count = (m->captures == 0 && s != NULL) ? 1 : m->captures;
    luaL_checkstack(m->L, count, "too many captures");
    for (int i = 0; i < count; i++) pm_push_capture(m, i, s, e);
    return count;
}

// MARK: - string.find and string.match

/// A 1-based position argument as a 0-based offset; past the end when it is.
static size_t pm_start_offset(lua_Integer position, size_t length) {
    if (position > 0) return (size_t)position - 1;
    if (position == 0 || position < -(lua_Integer)length) return 0;
    return length - (size_t)(-position);
}

/// Whether a pattern has none of the characters that make it more than its text.
static int pm_is_plain(const char *p, size_t length) {
    for (size_t i = 0; i < length; i++) {
        switch (p[i]) {
            case '^': case '$': case '*': case '+': case '?': case '.': case '(': case '[': case '%': case '-':
                return 0;
            default: break;
        }
    }
    return 1;
}

/// The first occurrence of `needle` in `haystack`, or NULL.
static const char *pm_find_text(pm_matcher *m, const char *haystack, size_t haystack_length, const char *needle,
                                size_t needle_length) {
    if (needle_length == 0) return haystack;
    if (needle_length > haystack_length) return NULL;
    const char *last = haystack + (haystack_length - needle_length);
    for (const char *at = haystack; at <= last;) {
        const char *hit = memchr(at, needle[0], (size_t)(last - at) + 1);
        if (hit == NULL) return NULL;
        pm_spend(m, 1 + (long long)(needle_length / 16) + (hit - at) / 64);
        if (memcmp(hit + 1, needle + 1, needle_length - 1) == 0) return hit;
        at = hit + 1;
    }
    return NULL;
}

static int pm_find_or_match(lua_State *L, int find) {
    size_t subject_length, pattern_length;
    const char *subject = luaL_checklstring(L, 1, &subject_length);
    const char *pattern = luaL_checklstring(L, 2, &pattern_length);
    size_t start = pm_start_offset(luaL_optinteger(L, 3, 1), subject_length);
    if (start > subject_length) {
        luaL_pushfail(L);
        return 1;
    }
    pm_matcher m;
    pm_begin(&m, L, subject, subject_length, pattern, pattern_length);
    if (find && (lua_toboolean(L, 4) || pm_is_plain(pattern, pattern_length))) {
        const char *hit = pm_find_text(&m, subject + start, subject_length - start, pattern, pattern_length);
        pm_finish(&m);
        if (hit != NULL) {
            lua_pushinteger(L, (hit - subject) + 1);
            lua_pushinteger(L, (lua_Integer)((size_t)(hit - subject) + pattern_length));
            return 2;
        }
        luaL_pushfail(L);
        return 1;
    }
    int anchored = pattern_length > 0 && pattern[0] == '^';
    const char *p = anchored ? pattern + 1 : pattern;
    for (const char *from = subject + start;; from++) {
        pm_restart(&m);
        const char *end = pm_match(&m, from, p);
        if (end != NULL) {
            pm_finish(&m);
            if (!find) return pm_push_captures(&m, from, end);
            lua_pushinteger(L, (from - subject) + 1);
            lua_pushinteger(L, end - subject);
            return pm_push_captures(&m, NULL, NULL) + 2;
        }
        if (anchored || from >= m.subject_end) break;
    }
    pm_finish(&m);
    luaL_pushfail(L);
    return 1;
}

static int pm_find(lua_State *L) { return pm_find_or_match(L, 1); }

static int pm_match_function(lua_State *L) { return pm_find_or_match(L, 0); }

// MARK: - string.gmatch

/// The iterator: upvalues are the subject, the pattern, the offset to go on from and the
/// end offset of the last match (-1 before the first), so an empty match right after a
/// match is skipped.
static int pm_gmatch_next(lua_State *L) {
    size_t subject_length, pattern_length;
    const char *subject = lua_tolstring(L, lua_upvalueindex(1), &subject_length);
    const char *pattern = lua_tolstring(L, lua_upvalueindex(2), &pattern_length);
    lua_Integer last = lua_tointeger(L, lua_upvalueindex(4));
    pm_matcher m;
    pm_begin(&m, L, subject, subject_length, pattern, pattern_length);
    for (lua_Integer from = lua_tointeger(L, lua_upvalueindex(3)); from <= (lua_Integer)subject_length; from++) {
        pm_restart(&m);
        const char *end = pm_match(&m, subject + from, pattern);
        if (end != NULL && end - subject != last) {
            pm_finish(&m);
            lua_pushinteger(L, end - subject);
            lua_replace(L, lua_upvalueindex(3));
            lua_pushinteger(L, end - subject);
            lua_replace(L, lua_upvalueindex(4));
            return pm_push_captures(&m, subject + from, end);
        }
    }
    pm_finish(&m);
    return 0;
}

static int pm_gmatch(lua_State *L) {
    size_t subject_length;
    luaL_checklstring(L, 1, &subject_length);
    luaL_checklstring(L, 2, NULL);
    size_t start = pm_start_offset(luaL_optinteger(L, 3, 1), subject_length);
    if (start > subject_length) start = subject_length + 1;
    lua_settop(L, 2);
    lua_pushinteger(L, (lua_Integer)start);
    lua_pushinteger(L, -1);
    lua_pushcclosure(L, pm_gmatch_next, 4);
    return 1;
}

// MARK: - string.gsub

/// Appends a replacement string with its `%0`-`%9` and `%%` expanded. Each escape is a
/// step and the bytes copied count as memchr's do: a long template of escapes that add
/// nothing (`%0` of an empty match) is work the budget sees, though it grows no memory.
static void pm_add_template(pm_matcher *m, luaL_Buffer *buffer, const char *s, const char *e) {
    size_t length;
    const char *text = lua_tolstring(m->L, 3, &length);
    const char *text_end = text + length;
    const char *escape;
    while ((escape = memchr(text, PM_ESCAPE, (size_t)(text_end - text))) != NULL) {
        pm_spend(m, 1 + (long long)((escape - text) + (e - s)) / 16);
        luaL_addlstring(buffer, text, (size_t)(escape - text));
        char next = escape + 1 < text_end ? escape[1] : '\0';
        if (next == PM_ESCAPE) {
            luaL_addchar(buffer, PM_ESCAPE);
        } else if (next == '0') {
            luaL_addlstring(buffer, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)next)) {
            const char *capture;
            ptrdiff_t capture_length = pm_capture_text(m, next - '1', s, e, &capture);
            if (capture_length == PM_POSITION) {
                luaL_addvalue(buffer);
            } else {
                luaL_addlstring(buffer, capture, (size_t)capture_length);
            }
        } else {
            luaL_error(m->L, "invalid use of '%c' in replacement string", PM_ESCAPE);
        }
        text = escape + 2;
    }
    pm_spend(m, 1 + (long long)(text_end - text) / 16);
    luaL_addlstring(buffer, text, (size_t)(text_end - text));
}

/// Appends the replacement of the match `s`..`e`; whether it changed the text (a function
/// or table answering false or nil keeps the match).
static int pm_add_replacement(pm_matcher *m, luaL_Buffer *buffer, const char *s, const char *e, int kind) {
    lua_State *L = m->L;
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int count = pm_push_captures(m, s, e);
        lua_call(L, count, 1);
    } else if (kind == LUA_TTABLE) {
        pm_push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        pm_add_template(m, buffer, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(buffer, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(buffer);
    return 1;
}

static int pm_gsub(lua_State *L) {
    size_t subject_length, pattern_length;
    const char *subject = luaL_checklstring(L, 1, &subject_length);
    const char *pattern = luaL_checklstring(L, 2, &pattern_length);
    int kind = lua_type(L, 3);
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)subject_length + 1);
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE, 3,
                     "string/function/table");
    int anchored = pattern_length > 0 && pattern[0] == '^';
    const char *p = anchored ? pattern + 1 : pattern;
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    pm_matcher m;
    pm_begin(&m, L, subject, subject_length, pattern, pattern_length);
    const char *s = subject;
    const char *last = NULL;
    lua_Integer count = 0;
    int changed = 0;
    while (count < most) {
        pm_restart(&m);
        const char *end = pm_match(&m, s, p);
        if (end != NULL && end != last) {
            count++;
            changed |= pm_add_replacement(&m, &buffer, s, end, kind);
            s = last = end;
        } else if (s < m.subject_end) {
            luaL_addchar(&buffer, *s++);
        } else {
            break;
        }
        if (anchored) break;
    }
    pm_finish(&m);
    if (changed) {
        luaL_addlstring(&buffer, s, (size_t)(m.subject_end - s));
        luaL_pushresult(&buffer);
    } else {
        lua_pushvalue(L, 1);
    }
    lua_pushinteger(L, count);
    return 2;
}

// MARK: - Installing

void lrt_install_patterns(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"find", pm_find}, {"match", pm_match_function}, {"gmatch", pm_gmatch}, {"gsub", pm_gsub}, {NULL, NULL},
    };
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, LUA_STRLIBNAME);
    luaL_setfuncs(L, functions, 0);
    lua_pop(L, 2);
}
