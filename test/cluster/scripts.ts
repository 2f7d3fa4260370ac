// The project's cluster scripts (deploy/cluster/) and the ports start.sh PORT takes, for the tier's setup and tests.
import path from 'node:path';

const DIR = path.resolve(__dirname, '../../deploy/cluster');
export const CLUSTER_SCRIPTS = { start: path.join(DIR, 'start.sh'), stop: path.join(DIR, 'stop.sh') };

/** Offsets from the frontend port of everything start.sh PORT listens on (services, membership, PostgreSQL). */
export const portOffsets = [0, 1, 2, 6, 10, 199, 700, 701, 702, 706];
