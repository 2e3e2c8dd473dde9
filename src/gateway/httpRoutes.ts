/**
 * The plain-HTTP routes on the gateway's port: /health, /metrics and /admin/state (their content from
 * the engine's hooks), and the venue reads, which need the logon token.
 */
import type { HttpHooks, HttpReply } from "./engineApi.js";
import type { LogonDesk } from "./logon.js";
import type { GatewaySettings, GatewayStats } from "./options.js";
import type { HttpRoute } from "./transport.js";

const NOT_FOUND: HttpReply = { status: 404, body: "not found\n" };

export class HttpRoutes {
  constructor(
    private readonly hooks: HttpHooks,
    private readonly logon: LogonDesk,
    private readonly cfg: GatewaySettings,
    private readonly stats: GatewayStats,
    /** The gateway's own /health body when the engine gives none. */
    private readonly status: () => object,
  ) {}

  route(route: HttpRoute, authorization?: string): HttpReply {
    if (route === "admin") return this.hooks.admin?.(authorization) ?? { ...NOT_FOUND };
    const hook = this.hooks[route];
    if (hook) return hook();
    if (route === "health") {
      return {
        contentType: "application/json",
        body: JSON.stringify({ status: "ok", ...this.status() }),
      };
    }
    return { body: "" };
  }

  /**
   * A venue read: the caller shows the logon token (`Authorization: Bearer <token>`, user or admin);
   * a bad one waits the bad-token delay and gets 401, and nothing reaches the venue.
   */
  async venueRead(name: string, query: string, auth: string | undefined): Promise<HttpReply> {
    const hook = this.hooks.venue;
    if (hook === undefined) return { ...NOT_FOUND };
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : "";
    if (this.logon.role(token) === undefined) {
      this.stats.badTokens++;
      await new Promise((r) => setTimeout(r, this.cfg.badTokenDelayMs));
      return {
        status: 401,
        contentType: "application/json",
        body: '{"error":{"kind":"BadToken","message":"Authorization: Bearer <gateway token> required"}}',
      };
    }
    return hook(name, new URLSearchParams(query));
  }
}
