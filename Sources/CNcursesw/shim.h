#ifndef TDL_CNCURSESW_SHIM_H
#define TDL_CNCURSESW_SHIM_H
// SwiftPM drops pkg-config -D flags: ask for the wide-character API ourselves.
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Macros are invisible to Swift; these inline functions stand in for them.
static inline int tdl_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int tdl_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int tdl_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline int tdl_key_f(int n) { return KEY_F(n); }
static inline int tdl_attr_bold(void) { return (int)A_BOLD; }
static inline int tdl_attr_reverse(void) { return (int)A_REVERSE; }
static inline int tdl_attr_dim(void) { return (int)A_DIM; }
static inline int tdl_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int tdl_attr_normal(void) { return (int)A_NORMAL; }
static inline WINDOW *tdl_stdscr(void) { return stdscr; }
static inline int tdl_lines(void) { return LINES; }
static inline int tdl_cols(void) { return COLS; }
static inline int tdl_colors(void) { return COLORS; }
static inline unsigned long tdl_mouse_mask(void) { return (unsigned long)(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED); }
static inline int tdl_mouse_is_wheel_up(unsigned long b) { return (b & BUTTON4_PRESSED) != 0; }
static inline int tdl_mouse_is_wheel_down(unsigned long b) { return (b & BUTTON5_PRESSED) != 0; }
// Display width of one character (wcwidth needs _XOPEN_SOURCE, set above).
static inline int tdl_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }
// Whether the terminal TERM names can show a full screen: a terminfo entry with cursor
// addressing (TERM=dumb, unset or unknown cannot). Included last: term.h defines many macros.
#include <ncursesw/term.h>
static inline int tdl_terminal_usable(void) {
    int err = 0;
    if (setupterm(NULL, 1, &err) != OK) return 0;
    const char *cup = tigetstr("cup");
    int usable = cup != NULL && cup != (char *)-1;
    del_curterm(cur_term);
    return usable;
}
#endif
