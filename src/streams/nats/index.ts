/** The HFT private streams over NATS (docs/venue-api.md §6.4–6.5): import from here. */
export * from "./auth.js";
export * from "./credentials.js";
export * from "./hftPrivate.js";
export * from "./natsStream.js";
