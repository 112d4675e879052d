import { Flags } from '../oclif.js';
import { BaseCommand } from '../base-command.js';
import { resolveHome } from '../api/address.js';
import { IrisError } from '../model/errors.js';
import { openInBrowser } from '../ui/open-browser.js';

/** What `iris dashboard --json` prints. */
export interface DashboardAnswer {
  /** The dashboard's address, `http://HOST:PORT/`. */
  url: string;
  /** The login link (one use, good for 5 minutes). */
  loginUrl: string;
  /** `live`: the running cluster's dashboard; `offline`: this command serves the saved state, read-only. */
  mode: 'live' | 'offline';
  warning?: string;
}

export default class Dashboard extends BaseCommand {
  static override summary = "Open the cluster's web dashboard in a browser, or print its login link.";
  static override description =
    'Asks the running cluster for its web dashboard (started on the first call, on 127.0.0.1 and the port of ' +
    'dashboard.port, 0: a free one; kept until the cluster stops) and a login link: a one-time token, good for ' +
    '5 minutes, that logs one browser in (a session cookie). It prints the link and opens it in the browser ' +
    '(xdg-open or open); without a display it asks you to open the link yourself. --url prints only the link ' +
    "and opens nothing. Only the cluster's owner gets a link: inside a task it is refused (exit 4). With no " +
    'cluster running it starts none: it serves the state the cluster saved, read-only (cancel and retry ' +
    'answer unavailable), in the foreground until Ctrl-C; with no saved state either it exits 6. --json prints ' +
    '{url, loginUrl, mode: live|offline, warning?} (offline: as soon as it serves, on one line).';

  static override examples = [
    '<%= config.bin %> dashboard',
    '<%= config.bin %> dashboard --url',
    '<%= config.bin %> dashboard --json',
  ];

  static override flags = {
    url: Flags.boolean({ summary: 'Print only the login link; open no browser.' }),
  };

  protected override jsonInstants = false;

  async run(): Promise<DashboardAnswer | undefined> {
    const { flags } = await this.parse(Dashboard);
    const client = this.client();
    if (this.env.IRIS_CONTROLLER_ADDRESS || (await client.ping())) {
      const info = await client.dashboard();
      const answer: DashboardAnswer = {
        url: info.url,
        loginUrl: info.loginUrl,
        mode: 'live',
        ...(info.warning ? { warning: info.warning } : {}),
      };
      await this.show(answer, flags.url);
      return answer;
    }
    return this.offline(flags.url);
  }

  /** Print the link (and open it unless --url or --json). */
  private async show(answer: DashboardAnswer, urlOnly: boolean): Promise<void> {
    if (answer.warning) process.stderr.write(`iris: warning: ${answer.warning}\n`);
    if (this.jsonEnabled()) return;
    if (urlOnly) {
      this.log(answer.loginUrl);
      return;
    }
    this.log(`Dashboard: ${answer.url}`);
    this.log(`Log in (one use, good for 5 minutes): ${answer.loginUrl}`);
    if (await openInBrowser(answer.loginUrl, this.env)) this.log('Opened it in your browser.');
    else this.log('Open this URL in a browser.');
  }

  /** No cluster answers: serve its saved state read-only until Ctrl-C (see the description). */
  private async offline(urlOnly: boolean): Promise<undefined> {
    // Only here, when no cluster answers, as BaseCommand.readClient does.
    const [{ stateHolderPid }, { checkStateDir }] = await Promise.all([
      import('../api/lock-holder.js'),
      import('../api/state-dir.js'),
    ]);
    const home = resolveHome(this.env);
    const holder = stateHolderPid(home);
    if (holder !== null)
      throw new IrisError(
        'unavailable',
        `the iris cluster in ${home} (pid ${holder}) does not answer`,
        'check `iris cluster status`, or stop it with `iris cluster stop`',
      );
    checkStateDir(home);
    const { serveOfflineDashboard } = await import('../server/dashboard/offline.js');
    const served = await serveOfflineDashboard({
      home,
      env: this.env,
      cwd: process.cwd(),
      version: this.config.version,
      log: (line) => process.stderr.write(`iris: ${line}\n`),
    });
    const stopped = new Promise<void>((resolve) => {
      const dispose = this.onInterrupt(() => {
        dispose();
        resolve();
      });
    });
    const answer: DashboardAnswer = {
      url: served.url,
      loginUrl: served.loginUrl,
      mode: 'offline',
      ...(served.warning ? { warning: served.warning } : {}),
    };
    process.stderr.write(`iris: no cluster is running: serving the state saved in ${home}, read-only, until Ctrl-C\n`);
    if (this.jsonEnabled()) this.logJsonLine(answer);
    else await this.show(answer, urlOnly);
    await stopped;
    await served.close();
    return undefined;
  }
}
