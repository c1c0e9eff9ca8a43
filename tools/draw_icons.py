"""Draws the installed app's icons (ratscrew/web/icons/*.png) with matplotlib.

Run ``.venv/bin/python tools/draw_icons.py`` after changing the drawing; the PNGs are committed
(they are a few kilobytes) so that serving the page never needs matplotlib. Two kinds:

- ``icon-192.png`` / ``icon-512.png`` ("any"): two cards, a red jack slapped on a pile, on the
  felt green of the table, with rounded corners;
- ``maskable-192.png`` / ``maskable-512.png``: the same drawing inside the central 80 % safe
  zone of a full-bleed square, so that a launcher's circle or squircle mask never cuts a card.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch, Rectangle

FELT = "#1d4d3a"
FELT_DARK = "#143828"
PAPER = "#fbfaf5"
HEARTS = "#c4461a"
INK = "#1b1b1b"
ICONS = Path(__file__).resolve().parent.parent / "ratscrew" / "web" / "icons"


def draw(path: Path, size: int, *, maskable: bool) -> None:
    """One icon of ``size`` pixels square; ``maskable`` keeps the drawing in the safe zone."""
    fig = plt.figure(figsize=(1, 1), dpi=size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    fig.patch.set_alpha(0)
    if maskable:
        ax.add_patch(Rectangle((0, 0), 1, 1, color=FELT))
        scale, offset = 0.72, 0.14  # inside the 80 % circle of a maskable icon
    else:
        ax.add_patch(FancyBboxPatch((0.04, 0.04), 0.92, 0.92, boxstyle="round,pad=0,rounding_size=0.18",
                                    color=FELT, ec=FELT_DARK, lw=size / 64))
        scale, offset = 0.8, 0.1

    def card(x: float, y: float, angle: float, face: str, colour: str) -> None:
        w, h = 0.42 * scale, 0.6 * scale
        cx, cy = offset + x * scale, offset + y * scale
        patch = FancyBboxPatch((cx - w / 2, cy - h / 2), w, h, boxstyle="round,pad=0,rounding_size=0.04",
                               fc=PAPER, ec=INK, lw=size / 256)
        transform = matplotlib.transforms.Affine2D().rotate_deg_around(cx, cy, angle) + ax.transData
        patch.set_transform(transform)
        ax.add_patch(patch)
        ax.text(cx, cy, face, color=colour, fontsize=0.3 * scale * 72, ha="center", va="center",
                fontweight="bold", rotation=angle, transform=ax.transData, family="DejaVu Sans")

    card(0.36, 0.52, 14, "7", INK)
    card(0.62, 0.48, -10, "J♥", HEARTS)
    fig.savefig(path, dpi=size, transparent=not maskable)
    plt.close(fig)


def main() -> int:
    """Draws the four icons into ratscrew/web/icons."""
    ICONS.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        draw(ICONS / f"icon-{size}.png", size, maskable=False)
        draw(ICONS / f"maskable-{size}.png", size, maskable=True)
    print(f"icons written to {ICONS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
