/**
 * A reader for the plain YAML subset the deploy files keep to (block maps, block lists of scalars or
 * maps, quoted or bare scalars, `#` comments; no anchors, flow collections or multi-line scalars), so
 * the deploy test needs no YAML dependency. Anything outside the subset throws, naming the line.
 */

export type Yaml = string | null | Yaml[] | { [k: string]: Yaml };

interface Line {
  no: number;
  indent: number;
  text: string;
}

/** The text without a trailing comment (a `#` after whitespace or at the start, outside quotes). */
function uncomment(s: string): string {
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(s[i - 1]!))) return s.slice(0, i);
  }
  return s;
}

function scalar(s: string, no: number): string {
  const t = s.trim();
  if (/^["'].*["']$/.test(t) && t[0] === t[t.length - 1]) return t.slice(1, -1);
  if (/^[[{&*!|>]/.test(t)) throw new Error(`line ${no}: outside the YAML subset: ${t}`);
  return t;
}

const KEY = /^([A-Za-z_][\w.-]*):(?:\s+(.*))?$/;

export function parseYaml(text: string): Yaml {
  const lines: Line[] = [];
  text.split("\n").forEach((raw, i) => {
    const body = uncomment(raw).trimEnd();
    if (body.trim() === "") return;
    if (body.includes("\t")) throw new Error(`line ${i + 1}: tab in indentation`);
    lines.push({ no: i + 1, indent: body.length - body.trimStart().length, text: body.trim() });
  });
  let at = 0;

  function block(indent: number): Yaml {
    return lines[at]!.text.startsWith("- ") || lines[at]!.text === "-" ? list(indent) : map(indent);
  }

  function map(indent: number): { [k: string]: Yaml } {
    const out: { [k: string]: Yaml } = {};
    while (at < lines.length && lines[at]!.indent === indent && !lines[at]!.text.startsWith("-")) {
      const l = lines[at]!;
      const m = KEY.exec(l.text);
      if (m === null) throw new Error(`line ${l.no}: expected "key: value": ${l.text}`);
      at++;
      if (m[2] !== undefined && m[2] !== "") out[m[1]!] = scalar(m[2], l.no);
      else if (at < lines.length && lines[at]!.indent > indent) out[m[1]!] = block(lines[at]!.indent);
      else out[m[1]!] = null;
    }
    if (at < lines.length && lines[at]!.indent > indent)
      throw new Error(`line ${lines[at]!.no}: unexpected indentation`);
    return out;
  }

  function list(indent: number): Yaml[] {
    const out: Yaml[] = [];
    while (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith("-")) {
      const l = lines[at]!;
      const item = l.text.slice(1).trim();
      if (KEY.test(item)) {
        // "- key: value" opens a map whose keys sit two columns in.
        lines[at] = { no: l.no, indent: indent + 2, text: item };
        out.push(map(indent + 2));
      } else {
        at++;
        out.push(scalar(item, l.no));
      }
    }
    return out;
  }

  if (lines.length === 0) return null;
  const doc = block(lines[0]!.indent);
  if (at < lines.length) throw new Error(`line ${lines[at]!.no}: unexpected ${lines[at]!.text}`);
  return doc;
}
