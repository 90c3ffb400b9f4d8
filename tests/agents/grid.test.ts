// The grid section of docs/agents.md: written between its markers without touching the rest of
// the file, and compared with a run's cells whatever padding the formatter gave its table.
import { describe, expect, it } from "vitest";
import { agentsGridSection, GRID_END, GRID_START, gridSectionOf, normalizeGrid, replaceGridSection } from "./grid";

const cells = [
  { agent: "codex", version: "0.1", family: "OpenAI", mode: "passthrough" as const, tests: ["OpenAI › codex plain"], passed: true },
  { agent: "codex", version: "0.1", family: "Claude", mode: "converted" as const, tests: ["Claude › codex plain"], passed: false },
];

describe("the agents grid section", () => {
  it("has a row per agent and a cell per family, each with its mode, its outcome and its tests", () => {
    const section = agentsGridSection(cells, ["OpenAI", "Claude", "Gemini"]);
    expect(section.startsWith(GRID_START)).toBe(true);
    expect(section.endsWith(GRID_END)).toBe(true);
    expect(section).toContain("| Agent | OpenAI | Claude | Gemini |");
    expect(section).toContain("| codex 0.1 | ✅ passthrough<br>`OpenAI › codex plain` | ❌ converted<br>`Claude › codex plain` | — |");
  });

  it("replaces only what lies between the markers, and is appended to a file that has none", () => {
    const section = agentsGridSection(cells, ["OpenAI"]);
    const doc = `# Title\n\nintro\n\n${GRID_START}\nold grid\n${GRID_END}\n\n## Passthrough headers\n\ntext\n`;
    expect(replaceGridSection(doc, section)).toBe(`# Title\n\nintro\n\n${section}\n\n## Passthrough headers\n\ntext\n`);
    expect(replaceGridSection("# Title\n", section)).toBe(`# Title\n\n${section}\n`);
    expect(gridSectionOf(replaceGridSection(doc, section))).toBe(section);
  });

  it("reads a table the formatter padded as the same grid, and a changed cell as another", () => {
    const compact = agentsGridSection(cells, ["OpenAI", "Claude"]);
    const padded = compact
      .replace("| Agent | OpenAI | Claude |", "| Agent     | OpenAI        | Claude        |")
      .replace("| --- | --- | --- |", "| --------- | ------------- | ------------- |");
    expect(padded).not.toBe(compact);
    expect(normalizeGrid(padded)).toBe(normalizeGrid(compact));
    expect(normalizeGrid(compact.replace("❌", "✅"))).not.toBe(normalizeGrid(compact));
  });
});
