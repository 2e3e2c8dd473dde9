/** Public surface of the stream consumers and the reconciler: import from here. */
export * from "./feed.js";
export * from "./marketData.js";
export * from "./nats/index.js";
export * from "./orderSync.js";
export * from "./reconciler.js";
export * from "./socketStream.js";
export * from "./spotPrivate.js";
export * from "./venue.js";
