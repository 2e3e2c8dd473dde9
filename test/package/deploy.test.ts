/**
 * The container image and deploy/compose.yaml, checked statically (no Docker engine here): every
 * file and directory they name exists, every port and address agrees with the configuration and
 * with the other services, the environment they set is configuration the gateway accepts, and the
 * image keeps its promises (init as PID 1 running node, non-root, var/ a volume, a health check on
 * /health, only dist/src, dist/sim and production dependencies).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { envName, KNOBS } from "../../src/config/schema.js";
import { parseYaml, type Yaml } from "./yamlSubset.js";

const root = resolve(import.meta.dirname, "..", "..");
const deploy = join(root, "deploy");

type Obj = { [k: string]: Yaml };
const obj = (v: Yaml | undefined, what: string): Obj => {
  if (v === null || v === undefined || typeof v !== "object" || Array.isArray(v))
    throw new Error(`${what}: expected a map`);
  return v;
};
const list = (v: Yaml | undefined, what: string): Yaml[] => {
  if (!Array.isArray(v)) throw new Error(`${what}: expected a list`);
  return v;
};
const text = (v: Yaml | undefined, what: string): string => {
  if (typeof v !== "string") throw new Error(`${what}: expected a scalar`);
  return v;
};
const yamlFile = (path: string) => parseYaml(readFileSync(path, "utf8"));

const compose = obj(yamlFile(join(deploy, "compose.yaml")), "compose.yaml");
const services = obj(compose.services, "services");
const svc = (name: string) => obj(services[name], `service ${name}`);

/** "127.0.0.1:H:C" / "H:C" → container port C. */
function containerPorts(s: Obj): number[] {
  return (s.ports === undefined ? [] : list(s.ports, "ports")).map((p) =>
    Number(text(p, "port").split(":").at(-1)),
  );
}

/** Bind mounts (`./x:/y[:ro]`, resolved against deploy/) and named volumes of a service. */
function mounts(s: Obj): { source: string; target: string; bind: boolean }[] {
  return (s.volumes === undefined ? [] : list(s.volumes, "volumes")).map((v) => {
    const [source, target] = text(v, "volume").split(":") as [string, string];
    const bind = source.startsWith(".") || source.startsWith("/");
    return { source: bind ? resolve(deploy, source) : source, target, bind };
  });
}

/** The compose environment with `${VAR:?…}` placeholders given a value, as `docker compose` would. */
function gatewayEnv(): Record<string, string> {
  const env = obj(svc("gateway").environment, "gateway environment");
  let n = 0;
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, text(v, k).replace(/\$\{[^}]+\}/g, () => `token-${++n}`)]),
  );
}

/** Dockerfile instructions of the last stage (the image), continuation lines joined. */
function dockerfile(): { all: string[]; final: string[] } {
  const joined = readFileSync(join(root, "Dockerfile"), "utf8")
    .split("\n")
    .filter((l) => !l.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\\\n\s*/g, " ");
  const all = joined.split("\n").filter((l) => l.trim() !== "");
  const lastFrom = all.map((l) => l.startsWith("FROM ")).lastIndexOf(true);
  return { all, final: all.slice(lastFrom) };
}

describe("Dockerfile", () => {
  const { all, final } = dockerfile();
  const config = loadConfig({ env: {} });

  it("copies only files that exist and that .dockerignore lets through", () => {
    const ignored = readFileSync(join(root, ".dockerignore"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    const sources = all
      .filter((l) => l.startsWith("COPY ") && !l.includes("--from="))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.sort()).toEqual(
      [
        "config",
        "package-lock.json",
        "package-lock.json",
        "package.json",
        "package.json",
        "native",
        "sim",
        "src",
        "tsconfig.json",
      ].sort(),
    );
    for (const s of sources) {
      expect(existsSync(join(root, s)), s).toBe(true);
      expect(ignored.includes(s) || ignored.includes(s.split("/")[0]!), `${s} is in .dockerignore`).toBe(
        false,
      );
    }
  });

  it("the image: tini as PID 1 running node, production dependencies, dist/src, dist/sim and dist/native only", () => {
    expect(final.some((l) => /apt-get install .*\btini\b/.test(l))).toBe(true);
    expect(final.find((l) => l.startsWith("ENTRYPOINT "))).toBe('ENTRYPOINT ["/usr/bin/tini", "--"]');
    const cmd = JSON.parse(final.find((l) => l.startsWith("CMD "))!.slice(4)) as string[];
    expect(cmd[0]).toBe("node");
    expect(existsSync(join(root, cmd[1]!.replace(/^dist\//, "").replace(/\.js$/, ".ts")))).toBe(true);
    expect(final.some((l) => l.includes("npm ci --omit=dev"))).toBe(true);
    const fromBuild = final.filter((l) => l.includes("--from=")).map((l) => l.split(/\s+/)[2]);
    expect(fromBuild.map((p) => p!.replace(/^\/app\//, ""))).toEqual(["dist/src", "dist/sim", "dist/native"]);
    expect(final.some((l) => /\bnpm (start|run)\b/.test(l))).toBe(false);
  });

  it("runs as a non-root user with var/ as a volume and a health check on /health at the configured port", () => {
    const user = final.find((l) => l.startsWith("USER "))?.split(/\s+/)[1];
    expect(user).toBeDefined();
    expect(["root", "0"]).not.toContain(user);
    const workdir = final.find((l) => l.startsWith("WORKDIR "))!.split(/\s+/)[1]!;
    const volumes = JSON.parse(final.find((l) => l.startsWith("VOLUME "))!.slice(7)) as string[];
    // Every file the gateway writes by default is under var/ of the working directory.
    for (const p of [config.engine.stateFile, config.journal.dir, config.bus.dropCopy.spoolDir])
      expect(volumes).toContain(posix.join(workdir, p.split("/")[0]!));
    const health = final.find((l) => l.startsWith("HEALTHCHECK "))!;
    expect(health).toContain("/health");
    expect(health).toContain(`||${config.gateway.port})`);
    expect(final.find((l) => l.startsWith("EXPOSE "))).toBe(`EXPOSE ${config.gateway.port}`);
  });
});

describe("deploy/compose.yaml", () => {
  const env = gatewayEnv();
  const config = loadConfig({ env });

  it("has the gateway, nats-server, Prometheus and Grafana; every bind mount exists; named volumes declared", () => {
    expect(Object.keys(services).sort()).toEqual(["gateway", "grafana", "nats", "prometheus"]);
    const declared = Object.keys(obj(compose.volumes, "volumes"));
    for (const [name, s] of Object.entries(services)) {
      for (const m of mounts(obj(s, name))) {
        if (m.bind) expect(existsSync(m.source), `${name}: ${m.source}`).toBe(true);
        else expect(declared, `${name}: volume ${m.source}`).toContain(m.source);
      }
      for (const d of obj(s, name).depends_on === undefined
        ? []
        : list(obj(s, name).depends_on, "depends_on"))
        expect(Object.keys(services)).toContain(d);
    }
    const build = obj(svc("gateway").build, "gateway build");
    const context = resolve(deploy, text(build.context, "context"));
    expect(context).toBe(root);
    expect(existsSync(join(context, text(build.dockerfile, "dockerfile")))).toBe(true);
  });

  it("sets only configuration the gateway knows and accepts; ports and var/ agree with it and the image", () => {
    const known = new Set(KNOBS.flatMap((k) => [envName(k.path), ...(k.aliases ?? [])]));
    for (const k of Object.keys(env)) expect(known, k).toContain(k);
    expect(config.gateway.host).toBe("0.0.0.0");
    expect(config.gateway.token).not.toBeNull(); // mandatory off loopback
    expect(containerPorts(svc("gateway"))).toEqual([config.gateway.port]);
    const volume = mounts(svc("gateway")).find((m) => !m.bind)!;
    const image = dockerfile().final;
    expect(image.find((l) => l.startsWith("VOLUME "))).toContain(`"${volume.target}"`);
  });

  it("the bus address is the nats service's client port, and its config file is mounted where it is read", () => {
    const [host, port] = config.bus.nats.servers[0]!.split(":");
    expect(host).toBe("nats");
    const nats = svc("nats");
    const conf = list(nats.command, "nats command").map((c) => text(c, "arg"));
    const confPath = conf[conf.indexOf("-c") + 1]!;
    const mount = mounts(nats).find((m) => m.target === confPath)!;
    expect(mount.bind).toBe(true);
    const serverConf = readFileSync(mount.source, "utf8");
    expect(serverConf).toMatch(new RegExp(`^port: ${port}$`, "m"));
    expect(serverConf).toMatch(/jetstream/); // the drop copy's stream
    expect(containerPorts(nats)).toContain(Number(port));
    const store = /store_dir: "([^"]+)"/.exec(serverConf)![1];
    expect(mounts(nats).some((m) => !m.bind && m.target === store)).toBe(true);
  });

  it("Prometheus scrapes the gateway's /metrics at the gateway's service name and port", () => {
    const mount = mounts(svc("prometheus")).find((m) => m.target === "/etc/prometheus/prometheus.yml")!;
    const prom = obj(yamlFile(mount.source), "prometheus.yml");
    const job = obj(list(prom.scrape_configs, "scrape_configs")[0], "job");
    expect(text(job.metrics_path, "metrics_path")).toBe("/metrics");
    const targets = list(obj(list(job.static_configs, "static_configs")[0], "static").targets, "targets");
    expect(targets).toEqual([`gateway:${config.gateway.port}`]);
  });

  it("Grafana's data source is the Prometheus service, and its dashboard provider reads the repository's dashboard", () => {
    const g = svc("grafana");
    const prov = mounts(g).find((m) => m.target === "/etc/grafana/provisioning")!;
    const ds = obj(
      list(
        obj(yamlFile(join(prov.source, "datasources", "prometheus.yaml")), "ds").datasources,
        "datasources",
      )[0],
      "datasource",
    );
    expect(text(ds.type, "type")).toBe("prometheus");
    expect(text(ds.url, "url")).toBe(`http://prometheus:${containerPorts(svc("prometheus"))[0]}`);
    const providers = readdirSync(join(prov.source, "dashboards")).map((f) =>
      obj(list(obj(yamlFile(join(prov.source, "dashboards", f)), f).providers, "providers")[0], "provider"),
    );
    const path = text(obj(providers[0]!.options, "options").path, "path");
    const dash = mounts(g).find((m) => m.target === path)!;
    expect(dash.source).toBe(join(root, "dashboards", "grafana"));
    const boards = readdirSync(dash.source).filter((f) => f.endsWith(".json"));
    expect(boards.length).toBeGreaterThan(0);
    for (const b of boards) {
      expect(statSync(join(dash.source, b)).isFile()).toBe(true);
      expect((JSON.parse(readFileSync(join(dash.source, b), "utf8")) as { uid?: string }).uid).toBeTruthy();
    }
  });
});

describe("the YAML subset reader", () => {
  it("reads maps, lists of scalars and of maps, quotes and comments; refuses what it does not know", () => {
    expect(parseYaml('a: 1 # c\nb:\n  - x\n  - "y: #z"\nc:\n  - k: v\n    l: w\nd:\n')).toEqual({
      a: "1",
      b: ["x", "y: #z"],
      c: [{ k: "v", l: "w" }],
      d: null,
    });
    expect(() => parseYaml("a: [1, 2]")).toThrow(/line 1: outside the YAML subset/);
    expect(() => parseYaml("a: 1\n   b: 2")).toThrow(/line 2/);
  });
});
