/**
 * `task-door:` the task door on TCP (docs/configuration.md, "task-door"): besides
 * `<home>/tasks/iris.sock`, the controller listens on `listen` (HOST:PORT) for tasks that cannot
 * reach the socket (Pods of the kubernetes backend, docs/kubernetes.md), and tasks are given
 * `advertise` (http://HOST:PORT) in IRIS_CONTROLLER_ADDRESS. Every request there needs a task
 * token, exactly as on the socket task door.
 *
 * Guarantees: `listen` is a valid HOST:PORT with a fixed port; `advertise` is an http:// URL
 * (src/model/net-address.ts parses both); without `advertise` the listen address itself is
 * advertised, which a wildcard host (0.0.0.0, [::]) cannot be, so one then needs `advertise`.
 */
import { invalid } from '../../model/errors.js';
import {
  formatControllerUrl,
  isWildcardHost,
  parseControllerUrl,
  parseHostPort,
  type TcpAddress,
} from '../../model/net-address.js';
import { parseWith } from '../../model/schema-errors.js';
import { object, resolving } from './fields.js';

/** The resolved `task-door`: where the controller listens, and the URL tasks are given. */
export interface TaskDoorConfig {
  listen: TcpAddress;
  /** `http://HOST:PORT`, as tasks get it in IRIS_CONTROLLER_ADDRESS. */
  advertise: string;
}

const listen = parseWith<TcpAddress, string>((value) => parseHostPort(value, 'task-door.listen', '0.0.0.0:7070'));
const advertise = parseWith<string, string>((value) =>
  formatControllerUrl(parseControllerUrl(value, 'task-door.advertise')),
);

export const taskDoor = object(
  { listen, advertise: advertise.nullish() },
  'an object such as { listen: 0.0.0.0:7070, advertise: http://iris-task-door:7070 }',
)
  .nullish()
  .transform(
    resolving((door): TaskDoorConfig | null => {
      if (!door) return null;
      if (door.advertise) return { listen: door.listen, advertise: door.advertise };
      if (isWildcardHost(door.listen.host)) {
        throw invalid(
          `task-door.advertise is needed: tasks cannot be given the wildcard address ${door.listen.host}` +
            ` of task-door.listen`,
          'add the address tasks reach the controller at, for example advertise: http://iris-task-door:7070 (a Service) or http://10.0.0.5:7070',
        );
      }
      return { listen: door.listen, advertise: formatControllerUrl(door.listen) };
    }),
  );
