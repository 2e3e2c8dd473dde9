/** The HFT private streams over NATS (exchange-api §6.4–6.5): import from here. */
export * from "./auth.js";
export * from "./credentials.js";
export * from "./hftPrivate.js";
export * from "./natsStream.js";
