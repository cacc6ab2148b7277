// The js-yaml oracle of dshaudit's differential tests (rules/jsyaml): reads
// one input per line on stdin (base64 of the YAML bytes) and writes one
// JSON line per input: what js-yaml's load, with the schema dsh 0.1.0-rc.8
// uses (JSON_SCHEMA extended by !!js, @deepseek-ai/dsh-app-boot's
// entryListSchema), constructs, or the error it throws; and for a root
// list, JavaScript's Boolean() of each mapping item's `disabled`, the test
// cordis-plugin-loader applies ("expr" for a !!js expression, which the
// loader evaluates first).
//
// Usage: node oracle.cjs DIR   (DIR holds node_modules/js-yaml)
'use strict'
const path = require('path')
const readline = require('readline')
const dir = process.argv[2]
const yaml = require(path.join(dir, 'node_modules', 'js-yaml'))
const version = require(path.join(dir, 'node_modules', 'js-yaml', 'package.json')).version

// Expressions are marked by identity, so that a mapping written
// {__jsExpr: x} in the YAML is not mistaken for one.
const exprs = new WeakSet()
const schema = yaml.JSON_SCHEMA.extend(new yaml.Type('tag:yaml.org,2002:js', {
  kind: 'scalar',
  resolve: (data) => typeof data === 'string',
  construct: (data) => { const o = { __jsExpr: data }; exprs.add(o); return o },
  predicate: (v) => exprs.has(v),
  represent: (data) => data.__jsExpr
}))

function enc (v) {
  if (v === null) return null
  if (v === undefined) return { undef: true }
  switch (typeof v) {
    case 'boolean': return v
    case 'number':
      if (Number.isNaN(v)) return { n: 'NaN' }
      if (v === Infinity) return { n: 'Infinity' }
      if (v === -Infinity) return { n: '-Infinity' }
      return { n: v }
    case 'string': return { s: v }
  }
  if (exprs.has(v)) return { js: v.__jsExpr }
  if (Array.isArray(v)) return { l: v.map(enc) }
  return { m: Object.keys(v).map((k) => [k, enc(v[k])]) }
}

function truthiness (root) {
  if (!Array.isArray(root)) return undefined
  return root.map((it) => {
    if (it === null || typeof it !== 'object' || Array.isArray(it) || exprs.has(it)) return null
    if (exprs.has(it.disabled)) return 'expr'
    return Boolean(it.disabled)
  })
}

if (process.argv[3] === '--version') { process.stdout.write(version + '\n'); process.exit(0) }
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
const out = []
rl.on('line', (line) => {
  const src = Buffer.from(line, 'base64').toString('utf8')
  let r
  try {
    const v = yaml.load(src, { schema })
    r = { v: enc(v), t: truthiness(v) }
  } catch (e) {
    r = { err: String(e && e.message ? e.message.split('\n')[0] : e) }
  }
  out.push(JSON.stringify(r))
  if (out.length >= 256) { process.stdout.write(out.join('\n') + '\n'); out.length = 0 }
})
rl.on('close', () => { if (out.length) process.stdout.write(out.join('\n') + '\n') })
