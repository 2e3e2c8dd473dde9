/**
 * `hftgate/rest`: the REST client for CoinSwitch PRO (Spot v2, HFT v5) and its signing, usable on
 * their own. `createRestStack({ keys: loadKeyPair(secretHex), spotBaseUrl })` wires keys, epochs, the
 * clock sync, the pre-signer and the client; `signedMessage` + a `Signer` sign one request by hand.
 */
export { type EpochPolicy, EpochSource } from "../auth/epoch.js";
export { isApiKeyHex, KeyError, type KeyPair, loadKeyPair } from "../auth/keys.js";
export { RequestSigner, type SignedStamp } from "../auth/requestSigner.js";
export { encodeQuery, formDecode, signedMessage } from "../auth/signedMessage.js";
export { makeSigner, nativeSigner, pureJsSigner, type Signer } from "../auth/signer.js";
export { ClockError, type ClockOptions, type ClockState, ClockSync } from "../clock/clockSync.js";
export {
  type HftCancelParams,
  type HftCreateParams,
  makeGrid,
  type OrderGrid,
  type SpotCreateParams,
} from "../venue/orderFields.js";
export { createRestStack, type RestStack, type RestStackOptions } from "../venue/stack.js";
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
  DEFAULT_BASE_URL,
  type HttpOptions,
  type PreparedRequest,
  type Query,
  REAL_HOSTS,
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
