import { DEFAULT_THEME, mergeMantineTheme } from "@mantine/core";
import { describe, expect, it } from "vitest";
import { cssVariablesResolver, theme } from "@/components/theme";
import { AA_TEXT, contrastRatio, mix, readableOn, textOn } from "@/lib/ui/contrast";

const { colors, white } = DEFAULT_THEME;

describe("contrast arithmetic", () => {
  it("measures what the issue measured", () => {
    expect(contrastRatio("#ffffff", "#000000")).toBeCloseTo(21, 5);
    expect(contrastRatio(colors.yellow[9], colors.yellow[1])).toBeCloseTo(2.69, 2);
    expect(contrastRatio(colors.gray[6], white)).toBeCloseTo(3.32, 2);
  });

  it("keeps a colour that already reads and darkens or lightens one that does not, just enough", () => {
    expect(readableOn(colors.gray[9], [white])).toBe(colors.gray[9]);
    const yellow = readableOn(colors.yellow[9], [white, colors.yellow[1]]);
    expect(contrastRatio(yellow, colors.yellow[1])).toBeGreaterThanOrEqual(AA_TEXT);
    expect(contrastRatio(yellow, white)).toBeGreaterThanOrEqual(AA_TEXT);
    expect(yellow).not.toBe("#000000");
    const dimmed = readableOn(colors.dark[2], [colors.dark[7], colors.dark[6]]);
    expect(contrastRatio(dimmed, colors.dark[6])).toBeGreaterThanOrEqual(AA_TEXT);
    expect(dimmed).not.toBe("#ffffff");
  });

  it("picks the text colour that reads on a filled background", () => {
    expect(textOn(colors.blue[8])).toBe("white");
    expect(textOn(colors.yellow[8])).toBe("black");
    expect(mix("#000000", "#ffffff", 0.5)).toBe("#808080");
  });
});

describe("the console theme (components/theme.ts)", () => {
  const merged = mergeMantineTheme(DEFAULT_THEME, theme);
  const vars = cssVariablesResolver(merged);
  const surfaces = {
    light: [white, colors.gray[0], colors.gray[1]],
    dark: [colors.dark[7], colors.dark[6], colors.dark[8]],
  };

  it("sets every text colour at AA on the surfaces text sits on, in both schemes", () => {
    for (const scheme of ["light", "dark"] as const) {
      const set = vars[scheme] as Record<string, string>;
      for (const name of ["--mantine-color-dimmed", "--mantine-color-error", "--mantine-color-anchor", "--mantine-color-disabled-color"]) {
        for (const bg of surfaces[scheme])
          expect(contrastRatio(set[name], bg), `${scheme} ${name} on ${bg}`).toBeGreaterThanOrEqual(AA_TEXT);
      }
      for (const [color, shades] of Object.entries(merged.colors)) {
        if (color === "dark") continue;
        const badgeBg = scheme === "light" ? shades[1] : mix(shades[9], "#000000", 0.5);
        const lightColor = set[`--mantine-color-${color}-light-color`];
        expect(contrastRatio(lightColor, badgeBg), `${scheme} ${color} light badge`).toBeGreaterThanOrEqual(AA_TEXT);
        for (const bg of surfaces[scheme]) {
          expect(contrastRatio(set[`--mantine-color-${color}-text`], bg), `${scheme} ${color} text`).toBeGreaterThanOrEqual(AA_TEXT);
          expect(contrastRatio(lightColor, bg), `${scheme} ${color} subtle`).toBeGreaterThanOrEqual(AA_TEXT);
        }
      }
    }
    // The disabled text on a disabled button's grey.
    expect(contrastRatio((vars.light as Record<string, string>)["--mantine-color-disabled-color"], colors.gray[2])).toBeGreaterThanOrEqual(
      AA_TEXT,
    );
  });

  it("writes filled buttons and badges in the colour that reads on them", () => {
    for (const [color, shades] of Object.entries(merged.colors)) {
      const { color: text } = merged.variantColorResolver({ color, theme: merged, variant: "filled" });
      const hex = text === "var(--mantine-color-white)" ? white : "#000000";
      expect(contrastRatio(hex, shades[8]), `${color} filled`).toBeGreaterThanOrEqual(AA_TEXT);
    }
  });
});
