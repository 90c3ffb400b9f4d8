import { DEFAULT_THEME } from "@mantine/core";
import { describe, expect, it } from "vitest";
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
