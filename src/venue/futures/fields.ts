/** What every Futures v2 request carries: the one Futures exchange id (§5), on the body or the query. */
export const FUTURES_EXCHANGE = "EXCHANGE_2";
