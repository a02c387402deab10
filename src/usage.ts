import { defaultDataDir, settingsHelp } from './config.js';
import { VERSION } from './package.js';

/** What `selenium-flow --help` prints: the commands, then every setting (config.ts). */
export function usage(gridUser: string): string {
  return `selenium-flow ${VERSION}: drive real browsers on a Selenium Grid over MCP and HTTP.

Usage:
  selenium-flow serve   HTTP: MCP at /mcp, the REST API, OpenAPI at /openapi.json
  selenium-flow stdio   MCP over stdio, for desktop clients
  selenium-flow grid    start the embedded Selenium Grid; its GRID_URL (with this start's
                        credentials) goes to a private file whose path it prints
                        (--nodes N: a hub and N nodes instead of one)
  selenium-flow setup   install what the embedded Grid needs on Debian/Ubuntu: its packages
                        through apt as root (else the apt line to run), geckodriver with cargo
                        (--with-redis: Redis and the X tools the tests use too)
  selenium-flow doctor  say what this host (and OAUTH_ISSUER) has and lacks for serving browsers,
                        and how to fix it (exit code 1 when something required is missing)
  selenium-flow --version | --help

Without GRID_URL, serve and stdio start an embedded Grid (Java + Debian chromium) and stop it on exit;
on macOS or Windows, point GRID_URL at a Grid (e.g. docker-selenium's standalone image).
Its browsers reach this host only through a proxy that closes its ports (BROWSER_LOOPBACK_PORTS opens some);
as root they also run as the unprivileged user ${gridUser} behind an nftables table.
With GRID_URL, every browser the server opens goes through a fence it runs where the Grid's nodes reach it
(FENCE_LISTEN, FENCE_ADDRESS; BROWSER_FENCE=off leaves them unfenced).
Without FLOW_DATA_DIR, serve and stdio keep flows and files in ${defaultDataDir()}.

Each setting: its flag, else its env var (SELENIUM_FLOW_<NAME> wins over <NAME>), else the file named by
--config <file> or SELENIUM_FLOW_CONFIG (JSON or YAML, keyed by flag name without --), else its default.
${settingsHelp()}
`;
}
