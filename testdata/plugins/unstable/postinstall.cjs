// Exits 1 when the counter answers "fail", 0 otherwise: the repetitions of
// one run disagree deterministically (the first install fails, the next
// passes). Not a pattern for real plugins.
const http = require('http');
const url = require('./package.json').dshauditFixtureCounter;
http.get(url, res => {
  let body = '';
  res.on('data', d => { body += d });
  res.on('end', () => {
    body = body.trim();
    console.log('dshaudit-fixture-unstable: counter answered ' + body);
    process.exit(body === 'fail' ? 1 : 0);
  });
}).on('error', e => {
  console.error('dshaudit-fixture-unstable: counter unreachable: ' + e.message);
  process.exit(2);
});
