// The sigstore-js recipe of SPEC.md "Third-party verification": verify a
// key-signed dshaudit bundle's signature with @sigstore/verify alone.
//
//   node verify-bundle.js manifest.json signature.sigstore.json dshaudit.pub
//
// Exit 0 when the signature is valid for the key and the statement signs
// exactly this manifest.json; 1, with the reason on stderr, otherwise.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { bundleFromJSON } = require('@sigstore/bundle');
const { Verifier, toSignedEntity } = require('@sigstore/verify');

function main([manifestPath, bundlePath, pubPath]) {
  if (!pubPath) throw new Error('usage: node verify-bundle.js manifest.json signature.sigstore.json KEY.pub');
  const bundle = bundleFromJSON(JSON.parse(fs.readFileSync(bundlePath, 'utf8')));
  const key = crypto.createPublicKey(fs.readFileSync(pubPath));
  // Key-only trust material: no CA, no TSA, no transparency or CT log.
  // The key is the trust anchor whatever the bundle's (unauthenticated)
  // hint says, and it has no validity period.
  const trust = {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: () => ({ publicKey: key, validFor: () => true }),
  };
  // Thresholds of 0: a key-signed dshaudit bundle carries no tlog entry
  // and no timestamp (SPEC.md "Signing").
  new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, tsaThreshold: 0 }).verify(toSignedEntity(bundle));

  // The signature covers the DSSE payload; check it is the dshaudit
  // statement about these manifest bytes.
  if (bundle.content.$case !== 'dsseEnvelope') throw new Error('not a DSSE bundle');
  const env = bundle.content.dsseEnvelope;
  if (env.payloadType !== 'application/vnd.in-toto+json') throw new Error(`payload type ${env.payloadType}`);
  const st = JSON.parse(env.payload.toString('utf8'));
  if (st._type !== 'https://in-toto.io/Statement/v1') throw new Error(`statement type ${st._type}`);
  if (st.predicateType !== 'https://dshaudit.dev/evidence/v1') throw new Error(`predicate type ${st.predicateType}`);
  const digest = crypto.createHash('sha256').update(fs.readFileSync(manifestPath)).digest('hex');
  if (!Array.isArray(st.subject) || st.subject.length !== 1 || st.subject[0].name !== 'manifest.json' ||
      !st.subject[0].digest || st.subject[0].digest.sha256 !== digest) {
    throw new Error(`the statement's subject is not manifest.json with sha256 ${digest}`);
  }
  console.log(`verified: manifest.json sha256:${digest}`);
}

try {
  main(process.argv.slice(2));
} catch (e) {
  console.error(`refused: ${e.message}`);
  process.exit(1);
}
