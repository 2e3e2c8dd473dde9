export * from "./codec.js";
export * from "./files.js";
export * from "./history.js";
export * from "./identity.js";
export * from "./reader.js";
export * from "./records.js";
export * from "./scan.js";
export * from "./writer.js";
