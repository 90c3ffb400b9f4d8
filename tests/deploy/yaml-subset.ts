// The YAML that docker-compose.yml is written in, read strictly (no YAML package is installed):
// block mappings, block sequences of scalars, plain/quoted scalars and JSON-style flow sequences.
// Anything else (anchors, aliases, merge keys, block scalars, flow mappings, tabs, a duplicate
// key) throws, so the compose file cannot drift into a shape this reads wrongly.

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

type Line = { no: number; indent: number; text: string };

/** `text` without a trailing comment (a `#` at the start or after a space, outside quotes). */
function stripComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || text[i - 1] === " ")) return text.slice(0, i);
  }
  if (quote) throw new Error(`unterminated quote in: ${text}`);
  return text;
}

function scalar(raw: string, no: number): YamlValue {
  const v = raw.trim();
  if (v === "") return null;
  if (/^[&*!|>{]/.test(v) || v.startsWith("<<")) throw new Error(`line ${no}: unsupported YAML (${v})`);
  if (v.startsWith("[")) {
    try {
      return JSON.parse(v) as YamlValue[];
    } catch {
      throw new Error(`line ${no}: a flow sequence must be JSON (double-quoted strings): ${v}`);
    }
  }
  if (v.startsWith('"')) return JSON.parse(v) as string;
  if (v.startsWith("'")) {
    if (!v.endsWith("'")) throw new Error(`line ${no}: unterminated quote`);
    return v.slice(1, -1).replaceAll("''", "'");
  }
  if (v === "true" || v === "false") return v === "true";
  if (v === "null" || v === "~") return null;
  if (/^-?\d+$/.test(v)) return Number(v);
  return v;
}

export function parseYamlSubset(text: string): YamlValue {
  const lines: Line[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.includes("\t")) throw new Error(`line ${i + 1}: tab`);
    const body = stripComment(raw).trimEnd();
    if (body.trim() === "") return;
    if (body.trim() === "---" || body.trim() === "...") throw new Error(`line ${i + 1}: one document only`);
    lines.push({ no: i + 1, indent: body.length - body.trimStart().length, text: body.trim() });
  });
  let at = 0;

  function block(indent: number): YamlValue {
    const first = lines[at]!;
    if (first.indent !== indent) throw new Error(`line ${first.no}: unexpected indentation`);
    if (first.text === "-" || first.text.startsWith("- ")) {
      const items: YamlValue[] = [];
      while (at < lines.length && lines[at]!.indent === indent) {
        const line = lines[at]!;
        if (!line.text.startsWith("- ")) throw new Error(`line ${line.no}: expected a sequence item`);
        const item = line.text.slice(2);
        if (/^[^"'[\s][^:]*:(\s|$)/.test(item)) throw new Error(`line ${line.no}: mappings inside sequences are not read here`);
        items.push(scalar(item, line.no));
        at++;
      }
      return items;
    }
    const map: { [key: string]: YamlValue } = {};
    while (at < lines.length && lines[at]!.indent === indent) {
      const line = lines[at]!;
      const m = /^("[^"]+"|[^\s:"'][^:]*?):(?:\s+(.*))?$/.exec(line.text);
      if (!m) throw new Error(`line ${line.no}: expected "key: value", got ${line.text}`);
      const key = m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : m[1]!;
      if (key === "<<") throw new Error(`line ${line.no}: merge keys are not read here`);
      if (Object.hasOwn(map, key)) throw new Error(`line ${line.no}: duplicate key ${key}`);
      at++;
      if (m[2] !== undefined && m[2].trim() !== "") {
        map[key] = scalar(m[2], line.no);
      } else if (at < lines.length && lines[at]!.indent > indent) {
        map[key] = block(lines[at]!.indent);
      } else if (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith("- ")) {
        // A sequence may sit at its key's own indentation.
        map[key] = block(indent);
      } else {
        map[key] = null;
      }
    }
    if (at < lines.length && lines[at]!.indent > indent) throw new Error(`line ${lines[at]!.no}: unexpected indentation`);
    return map;
  }

  if (lines.length === 0) return null;
  const doc = block(lines[0]!.indent);
  if (at < lines.length) throw new Error(`line ${lines[at]!.no}: unexpected indentation`);
  return doc;
}
