export * from "./clock.js";
export * from "./codec.js";
export * from "./schema.js";
