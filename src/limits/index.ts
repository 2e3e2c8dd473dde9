export * from "./classes.js";
export * from "./limiter.js";
export { SlidingLog } from "./window.js";
