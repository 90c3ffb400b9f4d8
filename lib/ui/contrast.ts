// WCAG 2 contrast arithmetic for the console theme (issue 20.21): the theme derives every text
// colour it sets (badges, subtle buttons, coloured text, outlines) from the palette with
// `readableOn`, so a colour that is too pale on its background is darkened (or, in dark mode,
// lightened) just enough, and every text keeps ≥ 4.5:1 without hand-picked shades per colour.

/** WCAG AA for normal-size text. */
export const AA_TEXT = 4.5;

type Rgb = [number, number, number];

function parseHex(hex: string): Rgb {
  const h = hex.replace(/^#/, "");
  const full = h.length === 3 ? [...h].map((c) => c + c).join("") : h;
  if (!/^[0-9a-f]{6}$/i.test(full)) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as Rgb;
}

const toHex = (rgb: Rgb) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;

/** Relative luminance (WCAG 2.x definition). */
export function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** `hex` mixed with `toward` by `amount` (0 to 1). */
export function mix(hex: string, toward: string, amount: number): string {
  const a = parseHex(hex);
  const b = parseHex(toward);
  return toHex(a.map((v, i) => v + (b[i] - v) * amount) as Rgb);
}

/**
 * `fg` itself when it reads at `min` on every one of `backgrounds`; otherwise `fg` mixed toward
 * black (on light backgrounds) or white (on dark ones) in small steps until it does.
 */
export function readableOn(fg: string, backgrounds: string[], min = AA_TEXT): string {
  const passes = (c: string) => backgrounds.every((bg) => contrastRatio(c, bg) >= min);
  if (passes(fg)) return fg;
  const darkest = backgrounds.reduce((d, bg) => (luminance(bg) < luminance(d) ? bg : d));
  const toward = luminance(darkest) > 0.18 ? "#000000" : "#ffffff";
  for (let step = 1; step <= 20; step++) {
    const candidate = mix(fg, toward, step / 20);
    if (passes(candidate)) return candidate;
  }
  return toward;
}

/** White or black text on a filled `background`: whichever contrasts more. */
export function textOn(background: string): "white" | "black" {
  return contrastRatio("#ffffff", background) >= contrastRatio("#000000", background) ? "white" : "black";
}
