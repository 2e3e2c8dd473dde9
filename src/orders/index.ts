/** Public surface of the order model: import from here. */
export * from "./balances.js";
export * from "./event.js";
export * from "./guards.js";
export * from "./normalize.js";
export * from "./order.js";
export * from "./reports.js";
export * from "./resolve.js";
export * from "./status.js";
export * from "./store.js";
export * from "./transitions.js";
