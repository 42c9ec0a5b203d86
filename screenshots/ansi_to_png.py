#!/usr/bin/python3
"""Render a `tmux capture-pane -e -p` dump (text + SGR escapes) as a PNG.

    ansi_to_png.py CAPTURE.ans OUT.png [--cols 140] [--rows 42] [--size 15]

The capture is laid out on a cols x rows cell grid, the way a terminal would:
SGR colours (16 named, 256-colour and truecolor, in `;` or `:` form), bold, dim,
italic, reverse, underline, strikethrough; wide characters take two cells and
combining marks join the previous cell. Text uses DejaVu Sans Mono (Debian:
fonts-dejavu-core; its oblique faces, for italics, are in fonts-dejavu-extra).
Box-drawing, block and braille characters are drawn as shapes, as many terminals
do (the font's box lines leave gaps between rows, and it has no braille); any
other glyph the mono font lacks comes from DejaVu Sans, and one neither has is
reported on stderr. Needs Pillow (Debian: python3-pil).
"""

import argparse
import os
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
PAD = 14  # margin around the grid, in pixels at --size 15

# A dark terminal theme (VS Code's "Dark+" terminal palette): the 16 named colours
# 0-7 and their bright variants 8-15. brood uses named colours only, so these
# decide every hue in the picture.
PALETTE16 = [
    "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
]
DEFAULT_FG = "#cccccc"
DEFAULT_BG = "#1e1e1e"
DIM_SHARE = 0.55  # a dim glyph is this much of the way from bg to fg


def hex_rgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


def xterm256(n):
    """The xterm 256-colour table: 16 named, a 6x6x6 cube, 24 greys."""
    if n < 16:
        return hex_rgb(PALETTE16[n])
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    g = 8 + 10 * (n - 232)
    return (g, g, g)


class Pen:
    """The current SGR state; colours are None (default), an index, or (r, g, b)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.italic = False
        self.underline = self.reverse = self.strike = False

    def copy(self):
        p = Pen()
        p.__dict__.update(self.__dict__)
        return p


def extended_colour(params):
    """`5;N` or `2;R;G;B` (after 38/48/58): returns (colour, params consumed)."""
    if params and params[0] == 5 and len(params) >= 2:
        return params[1] % 256, 2
    if params and params[0] == 2 and len(params) >= 4:
        return tuple(max(0, min(255, v)) for v in params[1:4]), 4
    return None, len(params)


def apply_sgr(pen, text):
    groups = text.split(";") if text else ["0"]
    i = 0
    while i < len(groups):
        group = groups[i]
        if ":" in group:  # ITU form: 38:2::R:G:B, 38:5:N, 4:3 (underline style)
            sub = [int(s) if s else 0 for s in group.split(":")]
            code, rest = sub[0], sub[1:]
            if code in (38, 48) and rest:
                if rest[0] == 2 and len(rest) == 5:  # colour-space id present
                    rest = [2] + rest[2:]
                colour, _ = extended_colour(rest)
                setattr(pen, "fg" if code == 38 else "bg", colour)
            elif code == 4:
                pen.underline = not rest or rest[0] != 0
            i += 1
            continue
        code = int(group) if group.isdigit() else 0
        if code in (38, 48, 58):
            nums = [int(g) if g.isdigit() else 0 for g in groups[i + 1:]]
            colour, used = extended_colour(nums)
            if code == 38:
                pen.fg = colour
            elif code == 48:
                pen.bg = colour
            i += 1 + used
            continue
        if code == 0:
            pen.reset()
        elif code == 1:
            pen.bold = True
        elif code == 2:
            pen.dim = True
        elif code == 3:
            pen.italic = True
        elif code in (4, 21):
            pen.underline = True
        elif code == 7:
            pen.reverse = True
        elif code == 9:
            pen.strike = True
        elif code == 22:
            pen.bold = pen.dim = False
        elif code == 23:
            pen.italic = False
        elif code == 24:
            pen.underline = False
        elif code == 27:
            pen.reverse = False
        elif code == 29:
            pen.strike = False
        elif 30 <= code <= 37:
            pen.fg = code - 30
        elif code == 39:
            pen.fg = None
        elif 40 <= code <= 47:
            pen.bg = code - 40
        elif code == 49:
            pen.bg = None
        elif 90 <= code <= 97:
            pen.fg = code - 90 + 8
        elif 100 <= code <= 107:
            pen.bg = code - 100 + 8
        i += 1


# CSI (any final byte), OSC (ended by BEL or ST), or a lone two-byte escape.
ESCAPE = re.compile(r"\x1b(?:\[([0-9;:?<=>]*)([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def cell_width(ch):
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def parse(text, cols, rows):
    """The capture as a rows x cols grid of [text, pen] cells (None = the right
    half of a wide character)."""
    grid = [[[" ", Pen()] for _ in range(cols)] for _ in range(rows)]
    pen = Pen()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > rows:
        sys.exit(f"ansi_to_png: capture has {len(lines)} lines, more than --rows {rows}")
    for y, line in enumerate(lines):
        x, pos = 0, 0
        while pos < len(line):
            m = ESCAPE.match(line, pos)
            if m:
                if m.group(2) == "m":
                    apply_sgr(pen, m.group(1))
                pos = m.end()
                continue
            ch = line[pos]
            pos += 1
            if ch in "\r\x1b" or ord(ch) < 32:
                continue
            w = cell_width(ch)
            if w == 0:  # combining mark: joins the previous cell
                if x > 0 and grid[y][x - 1] is not None:
                    grid[y][x - 1][0] += ch
                continue
            if x + w > cols:
                break  # tmux never sends more than a row; be safe anyway
            grid[y][x] = [ch, pen.copy()]
            if w == 2:
                grid[y][x + 1] = None
            x += w
    # The rest of every row keeps the default pen; tmux trims trailing blanks.
    return grid


class Fonts:
    def __init__(self, size):
        def load(name, instead=None):
            # Oblique faces come from fonts-dejavu-extra; without it italics stay upright.
            path = FONT_DIR + name
            if instead and not os.path.exists(path):
                path = FONT_DIR + instead
            return ImageFont.truetype(path, size)

        self.mono = {False: load("DejaVuSansMono.ttf"), True: load("DejaVuSansMono-Bold.ttf")}
        self.italic = {False: load("DejaVuSansMono-Oblique.ttf", "DejaVuSansMono.ttf"),
                       True: load("DejaVuSansMono-BoldOblique.ttf", "DejaVuSansMono-Bold.ttf")}
        self.fallback = {False: load("DejaVuSans.ttf"), True: load("DejaVuSans-Bold.ttf")}
        ascent, descent = self.mono[False].getmetrics()
        self.ascent = ascent
        self.cw = round(self.mono[False].getlength("M"))
        self.ch = ascent + descent
        self._notdef = {}
        self._has = {}
        self.missing = set()

    def _render(self, font, text):
        im = Image.new("L", (self.cw * 3, self.ch * 2))
        ImageDraw.Draw(im).text((self.cw // 2, self.ch), text, font=font, fill=255, anchor="ls")
        return im.tobytes()

    def has(self, font, text):
        """Whether `font` draws `text` as something other than its .notdef box."""
        if id(font) not in self._notdef:
            self._notdef[id(font)] = self._render(font, "\U000F0000")  # private use: unmapped
        key = (id(font), text)
        if key not in self._has:
            self._has[key] = self._render(font, text) != self._notdef[id(font)]
        return self._has[key]

    def pick(self, text, bold, italic):
        """The mono face, or DejaVu Sans for a glyph the mono face lacks."""
        mono = (self.italic if italic else self.mono)[bold]
        if text == " " or self.has(mono, text):
            return mono
        if self.has(self.fallback[bold], text):
            return self.fallback[bold]
        self.missing.add(text)
        return mono


def blend(a, b, share):
    return tuple(round(a[i] + (b[i] - a[i]) * share) for i in range(3))


def resolve(colour, default):
    if colour is None:
        return hex_rgb(default)
    if isinstance(colour, int):
        return xterm256(colour)
    return colour


# Box-drawing and block characters are drawn as shapes, the way terminals such
# as kitty and foot do: font glyphs of them leave hairline gaps between rows.
# Box lines: the arms (up, down, left, right) each character has.
BOX_LIGHT = {"─": "lr", "│": "ud", "┌": "dr", "┐": "dl", "└": "ur", "┘": "ul", "├": "udr",
             "┤": "udl", "┬": "dlr", "┴": "ulr", "┼": "udlr", "╭": "dr", "╮": "dl", "╰": "ur",
             "╯": "ul", "╴": "l", "╵": "u", "╶": "r", "╷": "d"}
BOX_HEAVY = {"━": "lr", "┃": "ud", "┏": "dr", "┓": "dl", "┗": "ur", "┛": "ul", "┣": "udr",
             "┫": "udl", "┳": "dlr", "┻": "ulr", "╋": "udlr"}
SHADES = {"░": 0.25, "▒": 0.5, "▓": 0.75}
# Quadrant blocks: which of (upper-left, upper-right, lower-left, lower-right) are set.
QUADRANTS = {"▖": "0010", "▗": "0001", "▘": "1000", "▙": "1011", "▚": "1001", "▛": "1110",
             "▜": "1101", "▝": "0100", "▞": "0110", "▟": "0111"}


def draw_shape(draw, ch, x, y, cw, chh, fg, bg):
    """Draws `ch` if it is a line, block or braille character; False if not."""
    box = lambda x0, y0, x1, y1, fill=fg: draw.rectangle(
        (round(x0), round(y0), round(x1) - 1, round(y1) - 1), fill=fill)
    o = ord(ch)
    if ch in BOX_LIGHT or ch in BOX_HEAVY:
        arms = BOX_LIGHT.get(ch) or BOX_HEAVY[ch]
        t = max(1, round(cw / 9)) * (2 if ch in BOX_HEAVY else 1)
        cx, cy = x + (cw - t) // 2, y + (chh - t) // 2  # top-left of the centre square
        if "l" in arms:
            box(x, cy, cx + t, cy + t)
        if "r" in arms:
            box(cx, cy, x + cw, cy + t)
        if "u" in arms:
            box(cx, y, cx + t, cy + t)
        if "d" in arms:
            box(cx, cy, cx + t, y + chh)
    elif ch == "█":
        box(x, y, x + cw, y + chh)
    elif ch in SHADES:  # a flat mix rather than a stipple: reads as a track
        box(x, y, x + cw, y + chh, blend(bg, fg, SHADES[ch]))
    elif 0x2581 <= o <= 0x2587:  # lower 1/8 .. 7/8
        box(x, y + chh * (1 - (o - 0x2580) / 8), x + cw, y + chh)
    elif 0x2589 <= o <= 0x258F:  # left 7/8 .. 1/8
        box(x, y, x + cw * (0x2590 - o) / 8, y + chh)
    elif ch in "▀▔▐▕":
        part = {"▀": (0, 0, 1, 0.5), "▔": (0, 0, 1, 0.125), "▐": (0.5, 0, 1, 1), "▕": (0.875, 0, 1, 1)}[ch]
        box(x + cw * part[0], y + chh * part[1], x + cw * part[2], y + chh * part[3])
    elif ch in QUADRANTS:
        for i, bit in enumerate(QUADRANTS[ch]):
            if bit == "1":
                qx, qy = x + cw / 2 * (i % 2), y + chh / 2 * (i // 2)
                box(qx, qy, qx + cw / 2, qy + chh / 2)
    elif 0x2800 <= o <= 0x28FF:
        # Braille (DejaVu Sans Mono has none): bit k of the offset is dot k+1 of
        # the 2x4 cell, dots 1-3 and 4-6 down the columns, 7 and 8 at the bottom.
        dots = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (0, 3), (1, 3)]
        r = cw * 0.14
        for k, (col, row) in enumerate(dots):
            if (o - 0x2800) & (1 << k):
                dx = x + cw * (0.27 + 0.46 * col)
                dy = y + chh * (0.17 + 0.22 * row)
                draw.ellipse((dx - r, dy - r, dx + r, dy + r), fill=fg)
    else:
        return False
    return True


def render(grid, fonts, pad):
    rows, cols = len(grid), len(grid[0])
    cw, chh = fonts.cw, fonts.ch
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * chh + 2 * pad), hex_rgb(DEFAULT_BG))
    draw = ImageDraw.Draw(img)
    glyphs = []
    # Backgrounds first, then glyphs, so a glyph that reaches into the next row
    # (a descender, a tall fallback glyph) is not painted over.
    for y, row in enumerate(grid):
        for x, cell in enumerate(row):
            if cell is None:
                continue
            text, pen = cell
            wide = x + 1 < cols and row[x + 1] is None
            fg = resolve(pen.fg, DEFAULT_FG)
            bg = resolve(pen.bg, DEFAULT_BG)
            if pen.reverse:
                fg, bg = bg, fg
            if pen.dim:
                fg = blend(bg, fg, DIM_SHARE)
            px, py = pad + x * cw, pad + y * chh
            width = cw * (2 if wide else 1)
            if bg != hex_rgb(DEFAULT_BG):
                draw.rectangle((px, py, px + width - 1, py + chh - 1), fill=bg)
            glyphs.append((text, pen, fg, bg, px, py, width))
    for text, pen, fg, bg, px, py, width in glyphs:
        if text != " ":
            if len(text) == 1 and draw_shape(draw, text, px, py, cw, chh, fg, bg):
                pass
            else:
                font = fonts.pick(text, pen.bold, pen.italic)
                # A fallback glyph may be wider than the cell: centre it there.
                shift = (width - font.getlength(text)) / 2 if font in fonts.fallback.values() else 0
                draw.text((px + shift, py + fonts.ascent), text, font=font, fill=fg, anchor="ls")
        if pen.underline:
            uy = py + fonts.ascent + max(1, chh // 12)
            draw.line((px, uy, px + width - 1, uy), fill=fg, width=max(1, chh // 18))
        if pen.strike:
            sy = py + fonts.ascent - chh // 4
            draw.line((px, sy, px + width - 1, sy), fill=fg, width=max(1, chh // 18))
    return img


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("capture")
    ap.add_argument("out")
    ap.add_argument("--cols", type=int, default=140)
    ap.add_argument("--rows", type=int, default=42)
    ap.add_argument("--size", type=int, default=15, help="font size in pixels")
    args = ap.parse_args()
    with open(args.capture, encoding="utf-8", errors="replace") as f:
        grid = parse(f.read(), args.cols, args.rows)
    fonts = Fonts(args.size)
    img = render(grid, fonts, round(PAD * args.size / 15))
    if fonts.missing:
        print(f"ansi_to_png: no glyph for {''.join(sorted(fonts.missing))!r}", file=sys.stderr)
    # A screen holds a few hundred colours (mostly anti-aliasing shades), so a
    # 256-colour palette PNG looks the same at half the bytes.
    img.quantize(256, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(args.out, optimize=True)


if __name__ == "__main__":
    main()
