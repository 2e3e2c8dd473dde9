/** The venue-sync module lives in src/venue; the engine's start-up imports it from here. */
export { type SyncOptions, type VenueFeed, VenueSync } from "../venue/sync.js";
