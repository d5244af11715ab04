/**
 * The EIP-712 domain every perps command is signed under: `{name, version, chainId}` with no
 * verifyingContract (protocol-notes a.1). The venue publishes the values in `/v1/info/exchange`;
 * the defaults are the production ones.
 */
import type { Hex } from 'viem'
// 'viem/utils', not the root: the root loads ~360 modules (chains, actions) the bot never runs.
import { hashStruct } from 'viem/utils'
import { InputValidationError } from '../../errors.ts'

export interface PerpsDomain {
  name: string
  version: string
  chainId: number
}

/** Production domain: chain 137 (Polygon), as in the official client's `production` environment. */
export const DEFAULT_PERPS_DOMAIN: Readonly<PerpsDomain> = Object.freeze({
  name: 'Polymarket',
  version: '1',
  chainId: 137,
})

/** `EIP712Domain(string name,string version,uint256 chainId)`: the fields present, in canonical order. */
export const EIP712_DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
] as const

/** The part of `GET /v1/info/exchange` that feeds the domain (other fields are ignored). */
export interface ExchangeDomainInfo {
  name: string
  version: string
  chain_id: number
}

/**
 * Builds a domain from the defaults plus overrides (e.g. from configuration).
 * @throws {@link InputValidationError} on an empty name/version or a non-positive chain id.
 */
export function perpsDomain(overrides: Partial<PerpsDomain> = {}): PerpsDomain {
  const domain: PerpsDomain = {
    name: overrides.name ?? DEFAULT_PERPS_DOMAIN.name,
    version: overrides.version ?? DEFAULT_PERPS_DOMAIN.version,
    chainId: overrides.chainId ?? DEFAULT_PERPS_DOMAIN.chainId,
  }
  const problems: string[] = []
  if (typeof domain.name !== 'string' || domain.name.length === 0)
    problems.push('name must be a non-empty string')
  if (typeof domain.version !== 'string' || domain.version.length === 0)
    problems.push('version must be a non-empty string')
  if (!Number.isSafeInteger(domain.chainId) || domain.chainId <= 0)
    problems.push('chainId must be a positive integer')
  if (problems.length > 0) throw new InputValidationError('invalid EIP-712 domain', { details: problems })
  return domain
}

/**
 * Builds the domain from the exchange-info shape `{name, version, chain_id, ...}`.
 * @throws {@link InputValidationError} when a field is missing or invalid.
 */
export function perpsDomainFromExchangeInfo(info: ExchangeDomainInfo): PerpsDomain {
  return perpsDomain({ name: info.name, version: info.version, chainId: info.chain_id })
}

/**
 * The EIP-712 domain separator (`hashStruct(EIP712Domain)`, what viem's root `hashDomain` computes),
 * e.g. for diagnostics and golden tests.
 */
export function perpsDomainSeparator(domain: PerpsDomain): Hex {
  return hashStruct({
    data: { name: domain.name, version: domain.version, chainId: BigInt(domain.chainId) },
    primaryType: 'EIP712Domain',
    types: { EIP712Domain: EIP712_DOMAIN_FIELDS },
  })
}
