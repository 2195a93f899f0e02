// The sm-crypto-v2 peer of guomi's interop suite: one JSON request per line on stdin, one
// JSON reply per line on stdout. Byte fields are hex strings. See tests/interop/README.md.
import { createRequire } from 'node:module'
import readline from 'node:readline'
import { sm2, sm3, sm4, kdf, hkdf } from 'sm-crypto-v2'

const require = createRequire(import.meta.url)
const VERSION = require('sm-crypto-v2/package.json').version

const bytes = (hex) => Uint8Array.from(Buffer.from(hex ?? '', 'hex'))
const hex = (arr) => Buffer.from(arr).toString('hex')
// IDs are UTF-8 strings in sm-crypto-v2; the tests pass ASCII ones as hex.
const idText = (hexId) => (hexId === undefined || hexId === null ? undefined : Buffer.from(hexId, 'hex').toString('utf8'))

const ops = {
  version: () => ({ library: 'sm-crypto-v2', version: VERSION, runtime: `node ${process.version}` }),
  sm3: (r) => ({ digest: sm3(bytes(r.data)) }),
  hmac_sm3: (r) => ({ mac: sm3(bytes(r.data), { key: bytes(r.key) }) }),
  sm3_kdf: (r) => ({ key: hex(kdf(bytes(r.data), r.length)) }),
  sm3_hkdf: (r) => ({ key: hex(hkdf(bytes(r.ikm), bytes(r.salt), bytes(r.info), r.length)) }),
  sm4: (r) => {
    const opts = { mode: r.mode, output: 'array' }
    if (r.padding === 'none') opts.padding = 'none'
    if (r.mode === 'cbc') opts.iv = bytes(r.iv)
    if (r.mode === 'gcm') {
      opts.iv = bytes(r.nonce)
      if (r.aad !== undefined) opts.associatedData = bytes(r.aad)
      if (r.encrypt) {
        opts.outputTag = true
        const { output, tag } = sm4.encrypt(bytes(r.data), bytes(r.key), opts)
        return { data: hex(output) + hex(tag) }
      }
      const all = bytes(r.data)
      opts.tag = all.slice(all.length - 16)
      return { data: hex(sm4.decrypt(all.slice(0, all.length - 16), bytes(r.key), opts)) }
    }
    const f = r.encrypt ? sm4.encrypt : sm4.decrypt
    return { data: hex(f(bytes(r.data), bytes(r.key), opts)) }
  },
  sm2_generate: () => {
    const kp = sm2.generateKeyPairHex()
    return { priv: kp.privateKey, pub: kp.publicKey }
  },
  sm2_sign: (r) => {
    const opts = { hash: true, der: r.format !== 'raw', publicKey: r.pub ?? sm2.getPublicKeyFromPrivateKey(r.priv) }
    const id = idText(r.uid)
    if (id !== undefined) opts.userId = id
    return { sig: sm2.doSignature(bytes(r.data), r.priv, opts) }
  },
  sm2_verify: (r) => {
    const opts = { hash: true, der: r.format !== 'raw' }
    const id = idText(r.uid)
    if (id !== undefined) opts.userId = id
    return { valid: sm2.doVerifySignature(bytes(r.data), r.sig, r.pub, opts) }
  },
  // cipherMode 1 = C1C3C2, 0 = C1C2C3; C1 is written without 04 and must be given without it.
  sm2_encrypt: (r) => {
    if (r.format === 'der') return { ct: sm2.doEncrypt(bytes(r.data), r.pub, 1, { asn1: true }) }
    return { ct: sm2.doEncrypt(bytes(r.data), r.pub, r.format === 'c1c2c3' ? 0 : 1) }
  },
  sm2_decrypt: (r) => {
    const opts = { output: 'array' }
    if (r.format === 'der') opts.asn1 = true
    const pt = sm2.doDecrypt(r.ct, r.priv, r.format === 'c1c2c3' ? 0 : 1, opts)
    // doDecrypt signals a failed C3 check with an empty result, not an exception.
    if (pt.length === 0 && r.expect_empty !== true) throw new Error('doDecrypt returned an empty result (C3 mismatch)')
    return { data: hex(pt) }
  },
  sm2_kex_ephemeral: () => {
    const kp = sm2.generateKeyPairHex()
    const handle = nextHandle++
    sessions.set(handle, kp)
    return { handle, R: kp.publicKey }
  },
  // calculateSharedKey(keypairA, ephemeralA, publicB, ephemeralB, len, isRecipient, idA, idB)
  sm2_kex_finish: (r) => {
    const eph = sessions.get(r.handle)
    sessions.delete(r.handle)
    const own = { privateKey: r.priv, publicKey: sm2.getPublicKeyFromPrivateKey(r.priv) }
    const id = idText(r.uid) ?? '1234567812345678'
    const peerId = idText(r.peer_uid) ?? '1234567812345678'
    const key = sm2.calculateSharedKey(own, eph, r.peer_pub, r.peer_R, r.key_length, r.responder === true, id, peerId)
    return { key: hex(key) }
  },
}

const sessions = new Map()
let nextHandle = 1

const rl = readline.createInterface({ input: process.stdin, terminal: false, crlfDelay: Infinity })
rl.on('line', (line) => {
  let reply
  try {
    const r = JSON.parse(line)
    const f = ops[r.op]
    if (!f) throw new Error(`unknown op ${r.op}`)
    reply = { ok: true, ...f(r) }
  } catch (e) {
    reply = { ok: false, error: String(e && e.message ? e.message : e) }
  }
  process.stdout.write(JSON.stringify(reply) + '\n')
})
