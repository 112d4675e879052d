import { BaseCommand } from '../base-command.js';

/** What `iris version --json` prints. */
export interface VersionInfo {
  version: string;
  node: string;
  platform: string;
  arch: string;
}

export default class Version extends BaseCommand {
  static override summary = 'Print the version of iris, and the Node and platform it runs on.';
  static override description =
    'The same line as `iris --version`: iris/VERSION PLATFORM-ARCH node-vNODE. --json gives ' +
    '{version, node, platform, arch}.';

  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json'];

  protected override jsonInstants = false;

  async run(): Promise<VersionInfo> {
    await this.parse(Version);
    const info: VersionInfo = {
      version: this.config.version,
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    };
    this.log(this.config.userAgent);
    return info;
  }
}
