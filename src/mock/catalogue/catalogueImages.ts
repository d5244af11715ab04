/** Image URLs and ImageOptimization records of the generated catalogue (uploads on Polymarket's S3). */
import type { ImageOptimization } from '../../catalogue/schemas/resources.ts'
import type { Random } from '../../random.ts'
import { compact, isoMicros } from './wireFormat.ts'

const IMAGE_BASE = 'https://polymarket-upload.s3.us-east-2.amazonaws.com'

export function imageUrl(slug: string): string {
  return `${IMAGE_BASE}/${slug}.png`
}

/** An ImageOptimization record for an uploaded image. */
export function imageOptimization(
  rng: Random,
  id: number,
  slug: string,
  field: string,
  relname: string,
  relId: number,
  updatedMs: number,
): ImageOptimization {
  const source = rng.int(40, 900)
  return compact({
    id: String(id),
    imageUrlSource: imageUrl(slug),
    imageUrlOptimized: `${IMAGE_BASE}/optimized/${slug}.webp`,
    imageSizeKbSource: source,
    imageSizeKbOptimized: Math.max(8, Math.round(source / rng.int(3, 8))),
    imageOptimizedComplete: true,
    imageOptimizedLastUpdated: isoMicros(updatedMs, rng.int(0, 999_999)),
    relID: relId,
    field,
    relname,
  })
}
