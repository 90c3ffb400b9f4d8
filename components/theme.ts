// The console's Mantine theme, and the colour variables it overrides so that every text reads at
// WCAG AA (≥ 4.5:1) in both schemes (issue 20.21). Mantine's defaults put pale shades on pale
// backgrounds (yellow-9 on yellow-1 is 2.69:1, the dimmed gray-6 on white 3.32:1, white on a
// green-6 button 2.36:1); here each colour's text shades are derived from the palette with
// `readableOn` against the backgrounds they are drawn on, so no page has to pick shades itself.
import {
  Anchor,
  type CSSVariablesResolver,
  Drawer,
  Modal,
  createTheme,
  DEFAULT_THEME,
  defaultVariantColorsResolver,
  type MantineColorShade,
  parseThemeColor,
  type VariantColorsResolver,
} from "@mantine/core";
import { mix, readableOn, textOn } from "@/lib/ui/contrast";

const FONT_STACK = [
  "-apple-system",
  "BlinkMacSystemFont",
  '"Segoe UI"',
  '"PingFang SC"',
  '"Hiragino Sans GB"',
  '"Microsoft YaHei"',
  '"Noto Sans CJK SC"',
  '"Noto Sans SC"',
  '"Source Han Sans SC"',
  '"WenQuanYi Micro Hei"',
  "Roboto",
  '"Helvetica Neue"',
  "Arial",
  "sans-serif",
].join(", ");

/** Filled buttons, badges and the anchor use shade 8 in both schemes (white on blue-6 is 3.56:1). */
const FILLED_SHADE: MantineColorShade = 8;

/** Filled variants: white or black text, whichever reads better on the filled shade. */
const variantColorResolver: VariantColorsResolver = (input) => {
  const resolved = defaultVariantColorsResolver(input);
  if (input.variant !== "filled") return resolved;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  const palette = parsed.isThemeColor ? input.theme.colors[parsed.color] : undefined;
  if (!palette || palette.length < 10) return resolved;
  const background = palette[parsed.shade ?? FILLED_SHADE];
  return { ...resolved, color: `var(--mantine-color-${textOn(background)})` };
};

export const theme = createTheme({
  primaryColor: "blue",
  primaryShade: FILLED_SHADE,
  fontFamily: FONT_STACK,
  headings: { fontFamily: FONT_STACK },
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  defaultRadius: "md",
  variantColorResolver,
  components: {
    // Links sit in running text (notices, footers, forms): colour alone does not set them apart
    // from it (WCAG 1.4.1), an underline does.
    Anchor: Anchor.extend({ defaultProps: { underline: "always" } }),
    // The × of every drawer and modal has a name a screen reader can say.
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { "aria-label": "关闭" } } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "关闭" } } }),
  },
});

const { colors, white } = DEFAULT_THEME;
const { gray, dark } = colors;
/** What text sits on in light mode: the page and cards, striped and hovered table rows. */
const LIGHT_SURFACES = [white, gray[0], gray[1]];
/** In dark mode: the page, cards and drawers, striped rows and inputs, the header. */
const DARK_SURFACES = [dark[7], dark[6], dark[8]];

/** Per palette colour: the shades Mantine uses for text, made readable where they are not. */
function colorVariables(name: string, shades: readonly string[]) {
  // Mantine's "light" variant draws on shade 1 (hover 2) in light mode and on shade 9 darkened
  // by half (hover 30 %) in dark mode.
  const lightOn = [...LIGHT_SURFACES, shades[1], shades[2]];
  const darkOn = [...DARK_SURFACES, mix(shades[9], "#000000", 0.5), mix(shades[9], "#000000", 0.3)];
  const lightText = readableOn(shades[FILLED_SHADE], LIGHT_SURFACES);
  const darkText = readableOn(shades[4], DARK_SURFACES);
  return {
    light: {
      [`--mantine-color-${name}-light-color`]: readableOn(shades[9], lightOn),
      [`--mantine-color-${name}-text`]: lightText,
      [`--mantine-color-${name}-outline`]: lightText,
    },
    dark: {
      [`--mantine-color-${name}-light-color`]: readableOn(shades[0], darkOn),
      [`--mantine-color-${name}-text`]: darkText,
      [`--mantine-color-${name}-outline`]: darkText,
    },
  };
}

export const cssVariablesResolver: CSSVariablesResolver = (t) => {
  const light: Record<string, string> = {
    "--mantine-color-dimmed": readableOn(gray[6], LIGHT_SURFACES),
    "--mantine-color-error": readableOn(colors.red[6], LIGHT_SURFACES),
    "--mantine-color-anchor": readableOn(t.colors[t.primaryColor][FILLED_SHADE], LIGHT_SURFACES),
    // A disabled control's text still says something (更新余额 on a type without a balance).
    "--mantine-color-disabled-color": readableOn(gray[5], [gray[2], ...LIGHT_SURFACES]),
  };
  const darkVars: Record<string, string> = {
    "--mantine-color-dimmed": readableOn(dark[2], DARK_SURFACES),
    "--mantine-color-error": readableOn(colors.red[6], DARK_SURFACES),
    "--mantine-color-anchor": readableOn(t.colors[t.primaryColor][4], DARK_SURFACES),
    "--mantine-color-disabled-color": readableOn(dark[3], DARK_SURFACES),
  };
  for (const [name, shades] of Object.entries(t.colors)) {
    if (name === "dark" || shades.length < 10) continue;
    const v = colorVariables(name, shades);
    Object.assign(light, v.light);
    Object.assign(darkVars, v.dark);
  }
  return { variables: {}, light, dark: darkVars };
};
