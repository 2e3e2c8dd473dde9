/**
 * NATS subject rules for the built-in endpoint: tokens separated by `.`, `*` one token, `>` the rest
 * (one token or more, last only). Subscriptions may hold wildcards; published subjects may not.
 */

/** A subscription subject: non-empty tokens, no whitespace, `>` only as the last token. */
export function validSubject(s: string): boolean {
  if (s === "" || /\s/.test(s)) return false;
  const t = s.split(".");
  for (let i = 0; i < t.length; i++) {
    const k = t[i]!;
    if (k === "") return false;
    if (k === ">" && i !== t.length - 1) return false;
  }
  return true;
}

/** A publish subject: a valid subject without wildcard tokens. */
export function validPublishSubject(s: string): boolean {
  return validSubject(s) && !s.split(".").some((k) => k === "*" || k === ">");
}

/** Does the (wildcard) `pattern` match the literal `subject`? */
export function subjectMatches(pattern: string, subject: string): boolean {
  return tokensMatch(pattern.split("."), subject.split("."));
}

/** `subjectMatches` on subjects already split on `.` (the endpoint splits each once). */
export function tokensMatch(p: readonly string[], s: readonly string[]): boolean {
  for (let i = 0; i < p.length; i++) {
    const k = p[i]!;
    if (k === ">") return s.length > i;
    if (i >= s.length) return false;
    if (k !== "*" && k !== s[i]) return false;
  }
  return p.length === s.length;
}

/** Is every subject `sub` (itself possibly wildcarded) can match also matched by `pattern`? */
export function subsetOf(sub: string, pattern: string): boolean {
  const s = sub.split(".");
  const p = pattern.split(".");
  for (let i = 0; i < p.length; i++) {
    const k = p[i]!;
    if (k === ">") return s.length > i;
    if (i >= s.length) return false;
    const t = s[i]!;
    if (t === ">") return false;
    if (k === "*") continue;
    if (t === "*" || t !== k) return false;
  }
  return p.length === s.length;
}
