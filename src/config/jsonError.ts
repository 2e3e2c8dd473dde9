/**
 * Where a JSON text stops being JSON: line, column and what was expected, for configuration errors.
 * JSON.parse's own message quotes the text around the error (possibly a secret) and in some cases has
 * no position, so a small scanner finds the first error instead; it never returns the text itself.
 */
export interface JsonErrorAt {
  line: number;
  column: number;
  reason: string;
}

class Stop {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {}
}

const PUNCT = new Set(["{", "}", "[", "]", ",", ":", '"']);

/** The first syntax error of `text` (1-based line and column), or undefined when it is valid JSON. */
export function jsonErrorAt(text: string): JsonErrorAt | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const unexpected = (what: string): never => {
    if (i >= text.length) throw new Stop(i, `unexpected end of file, expected ${what}`);
    const c = text[i]!;
    // Only punctuation is named: any other character may belong to a secret.
    const shown = PUNCT.has(c) ? `'${c}'` : c === "/" ? "a comment" : "a character";
    throw new Stop(i, `unexpected ${shown}, expected ${what}`);
  };
  const str = () => {
    i++; // opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) throw new Stop(i, "line break or control character inside a string");
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i, "bad \\u escape");
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) throw new Stop(i, "bad escape in a string");
        i += 2;
        continue;
      }
      i++;
    }
    throw new Stop(i, "unexpected end of file inside a string");
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') unexpected("a property name in double quotes");
        str();
        ws();
        if (text[i] !== ":") unexpected("':' after the property name");
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        unexpected("',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        unexpected("',' or ']'");
      }
    }
    if (c === '"') {
      str();
      return;
    }
    for (const lit of ["true", "false", "null"]) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return;
      }
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m !== null && m[0] !== "" && m[0] !== "-") {
      i += m[0].length;
      return;
    }
    unexpected("a value");
  };
  try {
    value();
    ws();
    if (i < text.length) unexpected("the end of the file");
    return undefined;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < e.at && k < text.length; k++)
      if (text[k] === "\n") {
        line++;
        lineStart = k + 1;
      }
    return { line, column: e.at - lineStart + 1, reason: e.reason };
  }
}
