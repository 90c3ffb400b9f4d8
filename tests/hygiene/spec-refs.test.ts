// Comments cite the console's product spec as "spec §N" or "spec §N Sub-heading" (docs/spec.md).
// A citation that names no heading there sends the reader nowhere, so every one must resolve:
// the section exists, and a sub-heading name written with its capital (`§5 Token form`,
// `§2 Settings → personal`) or in quotes (`§3 "Login status object"`) is found in that section.
// Lower-case words after the number are read as the sentence going on (`spec §8 message`).
import { readFileSync } from "node:fs";
import path from "node:path";
import { sourceFiles } from "@/tests/helpers/source-files";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const SPEC = "docs/spec.md";
const DIRS = ["lib", "app", "components", "tests"];
const FILES = ["proxy.ts", "server.ts"];
const SOURCE = /\.(ts|tsx)$/;
const SKIP = /(^|\/)(generated|node_modules|__fixtures__)(\/|$)|^tests\/hygiene\/spec-refs\.test\.ts$/;
/** Documents other than the spec that comments cite by section; their § numbers are not checked here. */
const OTHER_DOCUMENTS = /(?:inventory|RFC \d+)\s*$/i;
const SECTION_SIGN = /§(\d+(?:\.\d+)*)/g;
/** Where a sub-heading name written after the number ends. */
const NAME_END = /[,;:()"`§]|\.(\s|$)|\*\/|\s—\s/;

type Heading = { level: number; text: string };
type Section = { title: string; headings: Heading[]; text: string };
type Ref = { file: string; line: number; number: string; name: string | null; quoted: boolean };

const sources = (dir: string) => sourceFiles(root, dir, SKIP, SOURCE);

/** The numbered sections of the spec ("## N. Title"), each with its sub-headings in order. */
function parseSpec(markdown: string): Map<string, Section> {
  const sections = new Map<string, Section>();
  let current: Section | null = null;
  for (const line of markdown.split("\n")) {
    const top = /^## (?:(\d+)\. )?(.+)$/.exec(line);
    if (top) {
      current = top[1] ? { title: top[2], headings: [{ level: 2, text: top[2] }], text: "" } : null;
      if (top[1] && current) sections.set(top[1], current);
      continue;
    }
    if (!current) continue;
    const sub = /^(#{3,6}) (.+)$/.exec(line);
    if (sub) current.headings.push({ level: sub[1].length, text: sub[2] });
    current.text += `${line}\n`;
  }
  return sections;
}

/** Every § citation in one source text, with the name written after it, if any. */
function findRefs(file: string, source: string): Ref[] {
  const refs: Ref[] = [];
  source.split("\n").forEach((text, i) => {
    for (const match of text.matchAll(SECTION_SIGN)) {
      if (OTHER_DOCUMENTS.test(text.slice(0, match.index))) continue;
      const rest = text.slice(match.index + match[0].length);
      let name: string | null = null;
      let quoted = false;
      const inQuotes = /^ ["“]([^"”]+)["”]/.exec(rest);
      const inParens = /^ \(([^)]+)\)/.exec(rest);
      if (inQuotes) [name, quoted] = [inQuotes[1], true];
      else if (inParens) name = inParens[1];
      else if (rest.startsWith(" ")) {
        const end = NAME_END.exec(rest);
        name = (end ? rest.slice(0, end.index) : rest).trim() || null;
      }
      refs.push({ file, line: i + 1, number: match[1], name, quoted });
    }
  });
  return refs;
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[`*'"“”‘’()[\]「」]/g, " ")
    .replace(/\s+/g, " ")
    .trim();

/** A name matches a heading it starts with ("Log entry and user lookup") or that contains it. */
function matches(name: string, heading: string): boolean {
  const n = norm(name);
  const h = norm(heading);
  return n === h || n.startsWith(`${h} `) || ` ${h} `.includes(` ${n} `);
}

/** Does "A → B → …" name a heading A of the section with B nested under it, and so on? */
function resolvesPath(headings: Heading[], parts: string[], from = 0, underLevel = 1): boolean {
  if (parts.length === 0) return true;
  for (let i = from; i < headings.length && headings[i].level > underLevel; i++) {
    if (!matches(parts[0], headings[i].text)) continue;
    if (resolvesPath(headings, parts.slice(1), i + 1, headings[i].level)) return true;
  }
  return false;
}

/** Why the citation does not resolve, or null when it does. */
function problem(ref: Ref, sections: Map<string, Section>): string | null {
  if (ref.number.includes(".")) return `the spec has no numbered sub-sections (§${ref.number})`;
  const section = sections.get(ref.number);
  if (!section) return `${SPEC} has no section ${ref.number}`;
  if (!ref.name) return null;
  if (ref.quoted) return norm(section.text).includes(norm(ref.name)) ? null : `"${ref.name}" is not in section ${ref.number}`;
  const found = resolvesPath(section.headings, ref.name.split(/→|->/));
  // Lower-case words after a number are the sentence going on, not a heading's name.
  if (found || !/^[A-Z]/.test(ref.name)) return null;
  return `section ${ref.number} (${section.title}) has no heading "${ref.name}"`;
}

const sections = parseSpec(readFileSync(path.join(root, SPEC), "utf8"));
const refs = [...DIRS.flatMap(sources), ...FILES].flatMap((file) => findRefs(file, readFileSync(path.join(root, file), "utf8")));

describe(`spec references resolve in ${SPEC}`, () => {
  it("has the numbered sections 1 to 9, in order", () => {
    expect([...sections.keys()]).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
  });

  it("finds the code's citations", () => {
    expect(refs.length).toBeGreaterThan(150);
    expect(refs.filter((r) => r.name && /^[A-Z]/.test(r.name)).length).toBeGreaterThan(50);
  });

  it("resolves every citation to a section and, where one is named, a heading of it", () => {
    const broken = refs.flatMap((ref) => {
      const why = problem(ref, sections);
      return why ? [`${ref.file}:${ref.line}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("tells a wrong citation from a right one", () => {
    const check = (text: string) => findRefs("x.ts", text).map((ref) => problem(ref, sections));
    expect(check("// (spec §4 Playground message, §2 Settings → personal)")).toEqual([null, null]);
    expect(check('// (spec §3 "Login status object", §5 (Channel), §9\'s values, §8 message)')).toEqual([null, null, null, null]);
    expect(check("// (spec §3 Playground message)")[0]).toMatch(/no heading "Playground message"/);
    expect(check("// (spec §2 Settings → Token form)")[0]).toMatch(/no heading/);
    expect(check('// (spec §2 "not in the spec")')[0]).toMatch(/not in section 2/);
    expect(check("// (spec §10)")[0]).toMatch(/no section 10/);
    expect(check("// (spec §5.8; inventory §5.8; RFC 9110 §7.6.1)")).toEqual([expect.stringMatching(/sub-sections/)]);
  });
});
