/** An sRGB colour with alpha, channels 0–255, alpha 0–1. */
export interface Rgba {
  red: number;
  green: number;
  blue: number;
  alpha: number;
}

/** The named colours mail actually uses to hide text; any other name is "unknown", never a guess. */
const NAMED: Record<string, string> = {
  white: '#ffffff',
  snow: '#fffafa',
  ivory: '#fffff0',
  whitesmoke: '#f5f5f5',
  ghostwhite: '#f8f8ff',
  black: '#000000',
  silver: '#c0c0c0',
  gray: '#808080',
  grey: '#808080',
  red: '#ff0000',
  blue: '#0000ff',
  green: '#008000',
  navy: '#000080',
};

/** A CSS value without its "!important" (and the space before it). */
export function withoutImportant(value: string): string {
  return value.endsWith('!important') ? value.slice(0, -'!important'.length).trimEnd() : value;
}

/** Parses a CSS (or HTML attribute) colour: #rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba(), a common name; undefined otherwise. */
export function parseCssColor(value: string | undefined): Rgba | undefined {
  if (!value) return undefined;
  let text = withoutImportant(value.trim().toLowerCase());
  if (text === 'transparent') return { red: 0, green: 0, blue: 0, alpha: 0 };
  text = NAMED[text] ?? text;
  // HTML attributes often leave out the "#" (bgcolor="FFFFFF").
  const hex = /^#?([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(text)?.[1];
  if (hex) {
    const full = hex.length <= 4 ? [...hex].map((digit) => digit + digit).join('') : hex;
    const channel = (index: number) => parseInt(full.slice(index * 2, index * 2 + 2), 16);
    return { red: channel(0), green: channel(1), blue: channel(2), alpha: full.length === 8 ? channel(3) / 255 : 1 };
  }
  const functional = /^rgba?\(([^)]*)\)$/.exec(text)?.[1];
  if (!functional) return undefined;
  const parts = functional.split(/[\s,/]+/).filter(Boolean);
  if (parts.length < 3) return undefined;
  const channel = (part: string) => (part.endsWith('%') ? (parseFloat(part) / 100) * 255 : parseFloat(part));
  const alphaPart = parts[3];
  const alpha = alphaPart === undefined ? 1 : alphaPart.endsWith('%') ? parseFloat(alphaPart) / 100 : parseFloat(alphaPart);
  const [red, green, blue] = parts.slice(0, 3).map(channel) as [number, number, number];
  if ([red, green, blue, alpha].some((number) => !Number.isFinite(number))) return undefined;
  return { red, green, blue, alpha };
}

/** The first colour in a `background` shorthand ("#000 url(x.png) no-repeat"), if any. */
export function backgroundColorOf(shorthand: string): Rgba | undefined {
  for (const token of shorthand.match(/rgba?\([^)]*\)|#[0-9a-f]{3,8}\b|[a-z]+/gi) ?? []) {
    const color = parseCssColor(token);
    if (color) return color;
  }
  return undefined;
}

/** WCAG relative luminance of an opaque colour. */
function luminance(color: Rgba): number {
  const linear = (channel: number) => {
    const value = channel / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(color.red) + 0.7152 * linear(color.green) + 0.0722 * linear(color.blue);
}

/** WCAG contrast ratio of text on a background (1 = identical, 21 = black on white). */
export function contrastRatio(text: Rgba, background: Rgba): number {
  const [lighter, darker] = [luminance(text), luminance(background)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}
