// Client CPU per record of Faceteer for TypeScript (@faceteer/facet 6.0.0, Node) against
// the stub server (examples/stub_server.rs, in its own process): put 10,000 README tasks,
// get them back by key, walk the 100-page query of their team. The same work faceteer's
// `benches/reads.rs` measures; `measure.sh` divides the two.
//
// node measure.mjs <endpoint>   prints one JSON line: microseconds of CPU per record.
import { DynamoDB } from '@aws-sdk/client-dynamodb';
import { Facet, Index } from '@faceteer/facet';

const endpoint = process.argv[2];
const N = 10_000;
const TEAM = 'team-bench';
const RUNS = Number(process.env.RUNS ?? 5);

const dynamoDb = new DynamoDB({
	endpoint,
	region: 'us-east-1',
	credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});

// The README's validator: dates back to Date, the status checked, due after created.
function taskValidator(input) {
	const task = { ...input };
	for (const field of ['dateDue', 'dateCreated', 'expiresAt']) {
		if (typeof task[field] === 'string') task[field] = new Date(task[field]);
	}
	if (task.status !== 'open' && task.status !== 'completed') throw new Error('bad status');
	if (task.dateDue < task.dateCreated) throw new Error('a task is due after it is created');
	return task;
}

const TaskFacet = new Facet({
	name: 'TASK',
	PK: { keys: ['teamId'], prefix: '#TEAM' },
	SK: { keys: ['taskId'], prefix: '#TASK' },
	ttl: 'expiresAt',
	connection: { dynamoDb, tableName: 'bench' },
	validator: taskValidator,
})
	.addIndex({
		index: Index.GSI1,
		PK: { keys: ['teamId'], prefix: '#TEAM' },
		SK: { keys: ['dateDue'], prefix: '#TASK_DUE' },
		alias: 'GSITeamDueDate',
	})
	.addIndex({
		index: Index.GSI2,
		PK: { keys: ['assignedUserId', 'status'], prefix: '#USER_STATUS' },
		SK: { keys: ['dateCreated'], prefix: '#TASK_CREATED' },
		alias: 'GSIUserStatus',
	});

// Task number i, as src/bench_task.rs makes it.
function task(i) {
	const created = new Date(Date.UTC(2026, 0, 1) + (i * 611 + 7) * 1000);
	const t = {
		teamId: TEAM,
		taskId: `task-${String(i).padStart(8, '0')}`,
		dateDue: new Date(created.getTime() + (30 + (i % 500) * 17) * 60_000),
		status: i % 4 === 0 ? 'completed' : 'open',
		dateCreated: created,
	};
	if (i % 3 !== 0) t.assignedUserId = `user-${String(i % 997).padStart(4, '0')}`;
	if (i % 4 === 0) t.expiresAt = new Date(created.getTime() + 90 * 86_400_000);
	return t;
}

const tasks = Array.from({ length: N }, (_, i) => task(i));
const keys = tasks.map((t) => ({ teamId: t.teamId, taskId: t.taskId }));

async function put() {
	const result = await TaskFacet.put(tasks);
	if (result.failed.length) throw new Error('a put failed');
}

async function get() {
	const found = await TaskFacet.get(keys);
	if (found.length !== N) throw new Error(`got ${found.length}`);
}

async function walk() {
	let cursor;
	let read = 0;
	do {
		const page = await TaskFacet.query({ teamId: TEAM }).list({ cursor });
		read += page.records.length;
		cursor = page.cursor;
	} while (cursor);
	if (read !== N) throw new Error(`walked ${read}`);
}

/// Microseconds of this process's CPU per record, the best of RUNS runs after a warm-up.
async function cpuPerRecord(work) {
	await work();
	let best = Infinity;
	for (let r = 0; r < RUNS; r++) {
		const start = process.cpuUsage();
		await work();
		const used = process.cpuUsage(start);
		best = Math.min(best, (used.user + used.system) / N);
	}
	return best;
}

console.log(
	JSON.stringify({
		put: await cpuPerRecord(put),
		get: await cpuPerRecord(get),
		query: await cpuPerRecord(walk),
	}),
);
