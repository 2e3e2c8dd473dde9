/**
 * NATS users and their permissions for the bus (docs/bus.md §6): the isolation between accounts is
 * the NATS server's, not only ours. Each role gets exactly the subjects it needs; everything else is
 * refused by the server (a publish is dropped, a subscription or a JetStream API call is refused).
 * `authorizationBlock` renders them as a nats-server `authorization { users = [...] }` block.
 */
import { streamName } from "./subjects.js";

export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** May answer requests it received (reply subjects), nothing more. */
  allow_responses?: boolean;
}

export interface NatsUserEntry {
  user: string;
  password: string;
  permissions: NatsPermissions;
}

/** A user's inbox prefix (set as the client's `inboxPrefix`): replies reach only that user. */
export const inboxOf = (user: string) => `_INBOX.${user}`;

/** JetStream API subjects a reader of one account's drop copy needs. */
function streamReader(account: string): string[] {
  const s = streamName(account);
  return [
    "$JS.API.INFO",
    `$JS.API.STREAM.INFO.${s}`,
    `$JS.API.STREAM.MSG.GET.${s}`,
    `$JS.API.CONSUMER.CREATE.${s}`,
    `$JS.API.CONSUMER.CREATE.${s}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${s}.>`,
    `$JS.API.CONSUMER.INFO.${s}.>`,
    `$JS.API.CONSUMER.DELETE.${s}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${s}.>`,
    `$JS.ACK.${s}.>`,
    `$JS.FC.${s}.>`,
  ];
}

export const roles = {
  /** The gateway of `account`: its sessions' subjects, its drop-copy stream, the control plane. */
  gateway(account: string, user: string, password: string): NatsUserEntry {
    const s = streamName(account);
    return {
      user,
      password,
      permissions: {
        publish: {
          allow: [
            `hftgate.${account}.out.*`,
            `hftgate.${account}.dc.>`,
            "$JS.API.INFO",
            `$JS.API.STREAM.CREATE.${s}`,
            `$JS.API.STREAM.UPDATE.${s}`,
            `$JS.API.STREAM.INFO.${s}`,
            `$JS.API.STREAM.MSG.GET.${s}`,
          ],
        },
        subscribe: {
          allow: [
            `hftgate.${account}.in.*`,
            `hftgate.ctl.${account}.*`,
            "hftgate.ctl.all.*",
            `${inboxOf(user)}.>`,
          ],
        },
        allow_responses: true,
      },
    };
  },
  /** A strategy of `account`: its remote sessions (and, with `dropCopy`, the account's drop copy). */
  strategy(account: string, user: string, password: string, dropCopy = false): NatsUserEntry {
    return {
      user,
      password,
      permissions: {
        publish: { allow: [`hftgate.${account}.in.*`, ...(dropCopy ? streamReader(account) : [])] },
        subscribe: { allow: [`hftgate.${account}.out.*`, `${inboxOf(user)}.>`] },
      },
    };
  },
  /** A drop-copy consumer of `account` (a risk or P&L service): reads the stream, nothing else. */
  reader(account: string, user: string, password: string): NatsUserEntry {
    return {
      user,
      password,
      permissions: {
        publish: { allow: streamReader(account) },
        subscribe: { allow: [`${inboxOf(user)}.>`] },
      },
    };
  },
  /** The bus admin: the control plane of every account and every account's drop copy. */
  admin(accounts: readonly string[], user: string, password: string): NatsUserEntry {
    return {
      user,
      password,
      permissions: {
        publish: { allow: ["hftgate.ctl.>", ...accounts.flatMap(streamReader)] },
        subscribe: { allow: [`${inboxOf(user)}.>`] },
      },
    };
  },
};

/**
 * A nats-server `authorization` block for these users (JSON is valid NATS configuration syntax). A
 * password of the form `$NAME` is written unquoted, a variable nats-server reads from its environment.
 */
export function authorizationBlock(users: readonly NatsUserEntry[]): string {
  const json = JSON.stringify(users, null, 2).replace(
    /"password": "(\$[A-Z_][A-Z0-9_]*)"/g,
    '"password": $1',
  );
  return `authorization {\n  users = ${json.replace(/\n/g, "\n  ")}\n}\n`;
}

export type Role = "gateway" | "strategy" | "reader" | "admin";
export const ROLES: readonly Role[] = ["gateway", "strategy", "reader", "admin"];

/** The user name of a role of an account (the one admin has no account). */
export function userName(role: Role, account?: string): string {
  const prefix = { gateway: "gw", strategy: "strat", reader: "reader", admin: "admin" }[role];
  return role === "admin" ? prefix : `${prefix}-${account}`;
}

/** `gw-A` -> `$NATS_PASSWORD_GW_A`: the environment variable nats-server reads that user's password from. */
export function passwordVar(user: string): string {
  return `$NATS_PASSWORD_${user.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

export interface UsersRequest {
  accounts: readonly string[];
  roles: readonly Role[];
  /** Strategies also get their account's reader rights (the drop copy). */
  strategyDropCopy: boolean;
  /** The password of a user (default: its variable reference, `passwordVar`). */
  password?: (user: string) => string;
}

/** The users of `hftgate bus users`: each asked role of each account, and one admin over all of them. */
export function usersFor(r: UsersRequest): NatsUserEntry[] {
  const pw = r.password ?? passwordVar;
  const out: NatsUserEntry[] = [];
  for (const role of r.roles) {
    if (role === "admin") {
      out.push(roles.admin(r.accounts, userName("admin"), pw(userName("admin"))));
      continue;
    }
    for (const a of r.accounts) {
      const u = userName(role, a);
      if (role === "gateway") out.push(roles.gateway(a, u, pw(u)));
      else if (role === "strategy") out.push(roles.strategy(a, u, pw(u), r.strategyDropCopy));
      else out.push(roles.reader(a, u, pw(u)));
    }
  }
  return out;
}
