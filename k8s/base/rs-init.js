// Initiates the MongoDB replica set once (mongosh, run by the mongodb-rs-init Job); a set already
// initiated is left alone, so the Job is safe to run on every apply. Members come from MEMBERS.
const members = process.env.MEMBERS.split(',').map((host, i) => ({ _id: i, host }));
try {
  rs.status();
  print('replica set already initiated');
} catch (e) {
  if (e.codeName !== 'NotYetInitialized') throw e;
  rs.initiate({ _id: 'rs0', members });
  print(`replica set rs0 initiated with ${members.length} member(s)`);
}
