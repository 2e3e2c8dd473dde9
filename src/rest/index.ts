/**
 * `hftgate/rest`: the REST client for CoinSwitch PRO (Spot v2, HFT v5, Futures v2) and its signing,
 * usable on their own. `createRestStack({ keys: loadKeyPair(secretHex), spotBaseUrl })` wires keys,
 * epochs, the clock sync, the pre-signer and the client (`VenueClient`: the venues' verbs on the
 * venue-neutral `RestClient`); `signedMessage` + a `Signer` sign one request by hand.
 *
 * The package's entry point, and the one file of src/rest that imports from src/venue (biome.jsonc):
 * the venues' requests live in src/venue/{spot,hft,futures}/ and are re-exported here.
 */
export { type EpochPolicy, EpochSource } from "../auth/epoch.js";
export { isApiKeyHex, KeyError, type KeyPair, loadKeyPair } from "../auth/keys.js";
export { RequestSigner, type SignedStamp } from "../auth/requestSigner.js";
export { encodeQuery, formDecode, signedMessage } from "../auth/signedMessage.js";
export { makeSigner, nativeSigner, pureJsSigner, type Signer } from "../auth/signer.js";
export { ClockError, type ClockOptions, type ClockState, ClockSync } from "../clock/clockSync.js";
export { VenueClient } from "../venue/client.js";
export type { FuturesCreateParams } from "../venue/futures/create.js";
export type { HftCancelParams } from "../venue/hft/cancel.js";
export type { HftCreateParams } from "../venue/hft/create.js";
export { isNotAllowlisted } from "../venue/hft/fields.js";
export { V5_RET } from "../venue/hft/retCodes.js";
export { makeGrid, type OrderGrid } from "../venue/orderFields.js";
export type { SpotCreateParams } from "../venue/spot/create.js";
export {
  createRestStack,
  REAL_HOSTS,
  type RestStack,
  type RestStackOptions,
} from "../venue/stack.js";
export {
  buildCatalogue,
  type Catalogue,
  ENDPOINT_ROWS,
  type Endpoint,
  type EndpointId,
  type HttpMethod,
  type RateClass,
} from "./catalogue.js";
export {
  type AnswerSink,
  DEFAULT_BASE_URL,
  type HttpOptions,
  type PreparedRequest,
  type Query,
  RestClient,
  type RestClientOptions,
} from "./client.js";
export {
  AuthError,
  InvalidRequestError,
  MissingEpochError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ResponseShapeError,
  RestError,
  ValidationError,
} from "./errors.js";
export * from "./wire.js";
