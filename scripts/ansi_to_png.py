#!/usr/bin/python3
"""Renders a terminal screen captured with colours (`tmux capture-pane -p -e -N`) into a PNG.

Usage: ansi_to_png.py SCREEN.txt OUT.png --cols N --rows N [--title TEXT]

Understands the SGR sequences tmux writes: 8/16 colours, 256 colours (38;5;N), true colour
(38;2;R;G;B), bold, dim, underline, reverse and the defaults (italic is drawn upright); other
escape sequences are dropped. Wide (CJK) characters take two cells, as in the terminal. Needs Pillow
(Debian: python3-pil) and DejaVu Sans Mono; CJK glyphs come from a fallback font.
"""

import argparse
import re
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_SIZE = 16
CELL_W, CELL_H = 10, 21          # DejaVu Sans Mono advances 9.6 px at 16 px; whole pixels keep columns even
PAD = 14                          # margin around the text
BAR_H = 30                        # the window's title bar

FONT_DIR = "/usr/share/fonts/truetype/"
REGULAR = FONT_DIR + "dejavu/DejaVuSansMono.ttf"
BOLD = FONT_DIR + "dejavu/DejaVuSansMono-Bold.ttf"
FALLBACKS = [FONT_DIR + "dejavu/DejaVuSans.ttf", FONT_DIR + "droid/DroidSansFallbackFull.ttf"]

DEFAULT_FG = (211, 215, 207)
DEFAULT_BG = (30, 32, 36)
WINDOW_BAR = (52, 55, 61)
# The 16 ANSI colours (Tango, as many terminals ship them).
ANSI = [
    (46, 52, 54), (204, 0, 0), (78, 154, 6), (196, 160, 0),
    (52, 101, 164), (117, 80, 123), (6, 152, 154), (211, 215, 207),
    (85, 87, 83), (239, 41, 41), (138, 226, 52), (252, 233, 79),
    (114, 159, 207), (173, 127, 168), (52, 226, 226), (238, 238, 236),
]


def color256(n):
    if n < 16:
        return ANSI[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
    level = 8 + 10 * (n - 232)
    return level, level, level


class Pen:
    """The current SGR state; colours are None (terminal default) or an RGB tuple."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def apply(self, params):
        codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = ANSI[c - 30]
            elif 40 <= c <= 47:
                self.bg = ANSI[c - 40]
            elif 90 <= c <= 97:
                self.fg = ANSI[c - 90 + 8]
            elif 100 <= c <= 107:
                self.bg = ANSI[c - 100 + 8]
            elif c == 39:
                self.fg = None
            elif c == 49:
                self.bg = None
            elif c in (38, 48):
                # 38;5;N or 38;2;R;G;B (and the same for the background)
                color = None
                if i + 2 < len(codes) and codes[i + 1] == 5:
                    color = color256(codes[i + 2])
                    i += 2
                elif i + 4 < len(codes) and codes[i + 1] == 2:
                    color = tuple(codes[i + 2:i + 5])
                    i += 4
                if c == 38:
                    self.fg = color
                else:
                    self.bg = color
            i += 1

    def colors(self):
        """Foreground and background as drawn: defaults resolved, dim and reverse applied."""
        fg, bg = self.fg or DEFAULT_FG, self.bg or DEFAULT_BG
        if self.dim:
            fg = tuple((a + b) // 2 for a, b in zip(fg, bg))
        if self.reverse:
            fg, bg = bg, fg
        return fg, bg


def cell_width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


ESCAPE = re.compile(r"\x1b\[([0-9;:?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b.")


def parse(text, cols, rows):
    """A grid of cells (char, fg, bg, bold, italic, underline); None marks a wide char's right half.

    tmux carries attributes over line ends, so the pen is kept across lines.
    """
    pen = Pen()
    grid = []
    for line in text.split("\n")[:rows]:
        row = []

        def put(chars):
            for ch in chars:
                w = cell_width(ch)
                if w == 0:  # a combining mark joins the previous character
                    if row and row[-1] is not None:
                        row[-1] = (row[-1][0] + ch,) + row[-1][1:]
                    continue
                fg, bg = pen.colors()
                row.append((ch, fg, bg, pen.bold, pen.italic, pen.underline))
                if w == 2:
                    row.append(None)

        pos = 0
        for m in ESCAPE.finditer(line):
            put(line[pos:m.start()])
            pos = m.end()
            if m.group(2) == "m":
                pen.apply(m.group(1))
        put(line[pos:])
        grid.append(row[:cols])
    grid += [[] for _ in range(rows - len(grid))]
    blank = (" ", DEFAULT_FG, DEFAULT_BG, False, False, False)
    return [row + [blank] * (cols - len(row)) for row in grid]


class Glyphs:
    """Picks, per character, the first font that has it (DejaVu lacks CJK)."""

    def __init__(self):
        self.regular = ImageFont.truetype(REGULAR, FONT_SIZE)
        self.bold = ImageFont.truetype(BOLD, FONT_SIZE)
        self.fallbacks = []
        for path in FALLBACKS:
            try:
                self.fallbacks.append(ImageFont.truetype(path, FONT_SIZE))
            except OSError:
                pass
        self.cache = {}

    @staticmethod
    def has_glyph(font, ch):
        # A missing glyph renders as the font's .notdef box, the same as for an unassigned code point.
        missing = font.getmask("\U0010fffd")
        mask = font.getmask(ch)
        return mask.size != missing.size or bytes(mask) != bytes(missing)

    def font(self, ch, bold):
        key = (ch, bold)
        if key not in self.cache:
            first = self.bold if bold else self.regular
            chosen = first
            if not ch.isspace() and not self.has_glyph(first, ch[0]):
                chosen = next((f for f in self.fallbacks if self.has_glyph(f, ch[0])), first)
            self.cache[key] = chosen
        return self.cache[key]


def draw_box_line(draw, ch, x, y, w, color):
    """Box-drawing lines as rectangles, so they join from cell to cell without gaps."""
    mid_y, mid_x = y + CELL_H // 2, x + w // 2
    if ch == "─":
        draw.rectangle([x, mid_y, x + w - 1, mid_y], fill=color)
    elif ch == "│":
        draw.rectangle([mid_x, y, mid_x, y + CELL_H - 1], fill=color)
    else:
        return False
    return True


def render(grid, cols, rows, title):
    width = cols * CELL_W + 2 * PAD
    height = rows * CELL_H + 2 * PAD + BAR_H
    image = Image.new("RGB", (width, height), DEFAULT_BG)
    draw = ImageDraw.Draw(image)

    # A plain window frame: title bar with the three usual dots.
    draw.rectangle([0, 0, width, BAR_H], fill=WINDOW_BAR)
    for k, dot in enumerate([(237, 106, 94), (245, 191, 79), (98, 197, 84)]):
        cx = 18 + 20 * k
        draw.ellipse([cx - 6, BAR_H // 2 - 6, cx + 6, BAR_H // 2 + 6], fill=dot)
    if title:
        title_font = ImageFont.truetype(REGULAR, 14)
        tw = draw.textlength(title, font=title_font)
        draw.text(((width - tw) / 2, BAR_H // 2), title, font=title_font, fill=(190, 193, 198), anchor="lm")

    glyphs = Glyphs()
    top = BAR_H + PAD
    ascent = glyphs.regular.getmetrics()[0]
    baseline_offset = (CELL_H - sum(glyphs.regular.getmetrics())) // 2 + ascent
    for r, row in enumerate(grid):
        y = top + r * CELL_H
        for c, cell in enumerate(row):
            if cell is None:
                continue
            ch, fg, bg, bold, italic, underline = cell
            w = CELL_W * (2 if c + 1 < cols and row[c + 1] is None else 1)
            x = PAD + c * CELL_W
            if bg != DEFAULT_BG:
                draw.rectangle([x, y, x + w - 1, y + CELL_H - 1], fill=bg)
            if underline:
                draw.line([x, y + CELL_H - 3, x + w - 1, y + CELL_H - 3], fill=fg)
            if ch == " " or draw_box_line(draw, ch, x, y, w, fg):
                continue
            font = glyphs.font(ch, bold)
            # Centre each glyph in its cell(s): fonts other than DejaVu have other advances.
            gx = x + (w - draw.textlength(ch, font=font)) / 2
            draw.text((gx, y + baseline_offset), ch, font=font, fill=fg, anchor="ls")
    return image


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("screen")
    parser.add_argument("output")
    parser.add_argument("--cols", type=int, required=True)
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    with open(args.screen, encoding="utf-8", errors="replace") as f:
        text = f.read()
    grid = parse(text, args.cols, args.rows)
    render(grid, args.cols, args.rows, args.title).save(args.output, optimize=True)


if __name__ == "__main__":
    main()
