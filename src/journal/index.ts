export * from "./codec.js";
export * from "./history.js";
export * from "./reader.js";
export * from "./records.js";
export * from "./writer.js";
