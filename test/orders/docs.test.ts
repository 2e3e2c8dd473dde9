import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { renderTransitionTable } from "../../src/orders/index.js";

const DOC = fileURLToPath(new URL("../../docs/orders.md", import.meta.url));
const BEGIN = "<!-- transitions:begin -->";
const END = "<!-- transitions:end -->";

it("docs/orders.md embeds the transition table rendered from the data", () => {
  const text = readFileSync(DOC, "utf8");
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  expect(a).toBeGreaterThan(0);
  expect(b).toBeGreaterThan(a);
  const want = `${BEGIN}\n${renderTransitionTable()}\n${END}`;
  if (process.env.ORDERS_WRITE_DOCS === "1") {
    writeFileSync(DOC, text.slice(0, a) + want + text.slice(b + END.length));
    return;
  }
  expect(text.slice(a, b + END.length)).toBe(want);
});
