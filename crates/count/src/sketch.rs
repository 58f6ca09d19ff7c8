//! A HyperLogLog sketch of game fingerprints: how many distinct games a set holds, in 4 KB
//! whatever its size, so the summary can say how many games are copies without keeping them.
//! Precision 12 (4096 one-byte registers): about 1.6% standard error; below ~10,000 games the
//! linear count of empty registers is nearly exact. Merging is register-wise max, so a merged
//! sketch is the same in whatever order its parts were added.

/// Index bits: 4096 registers.
const P: u32 = 12;
const M: usize = 1 << P;
/// Serialized forms' first byte.
const SPARSE: u8 = 1;
const DENSE: u8 = 2;

/// The registers, kept as the (index, rank) pairs set so far while they are few (most summary
/// rows hold a few games: a 4 KB array each was a third of the writing thread's work), else all
/// 4,096. Equal sketches are those whose registers are.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sketch {
    /// `index << 8 | rank`, unsorted, an index possibly more than once (the highest rank
    /// counts); empty once `dense` is set.
    sparse: Vec<u32>,
    dense: Vec<u8>,
}

/// Pairs kept before the registers become an array: beyond them, the array is smaller.
const SPARSE_MAX: usize = M / 4;

/// A 64-bit finalizer (splitmix64): fingerprints are hashes already, but one mix costs nothing
/// and guards against a weak bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Sketch {
    #[inline]
    pub(crate) fn insert(&mut self, fingerprint: u64) {
        let h = mix(fingerprint);
        let index = (h >> (64 - P)) as u32;
        let rank = ((h << P) | (1 << (P - 1))).leading_zeros() + 1;
        self.set(index, rank as u8);
    }

    #[inline]
    fn set(&mut self, index: u32, rank: u8) {
        if self.dense.is_empty() {
            self.sparse.push(index << 8 | u32::from(rank));
            if self.sparse.len() > SPARSE_MAX {
                self.densify();
            }
        } else {
            let r = &mut self.dense[index as usize];
            *r = (*r).max(rank);
        }
    }

    fn densify(&mut self) {
        self.dense = self.registers();
        self.sparse = Vec::new();
    }

    /// All 4,096 registers (empty for a sketch of nothing).
    fn registers(&self) -> Vec<u8> {
        if !self.dense.is_empty() {
            return self.dense.clone();
        }
        if self.sparse.is_empty() {
            return Vec::new();
        }
        let mut registers = vec![0; M];
        for &e in &self.sparse {
            let r = &mut registers[(e >> 8) as usize];
            *r = (*r).max(e as u8);
        }
        registers
    }

    pub(crate) fn merge(&mut self, other: &Sketch) {
        if other.dense.is_empty() {
            for &e in &other.sparse {
                self.set(e >> 8, e as u8);
            }
            return;
        }
        if self.dense.is_empty() {
            self.densify();
            if self.dense.is_empty() {
                self.dense = other.dense.clone();
                return;
            }
        }
        for (a, &b) in self.dense.iter_mut().zip(&other.dense) {
            *a = (*a).max(b);
        }
    }

    pub(crate) fn estimate(&self) -> u64 {
        let registers = self.registers();
        if registers.is_empty() {
            return 0;
        }
        let m = M as f64;
        let zeros = registers.iter().filter(|&&r| r == 0).count();
        let sum: f64 = registers.iter().map(|&r| 2f64.powi(-i32::from(r))).sum();
        let raw = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
        let e = if raw <= 2.5 * m && zeros > 0 { m * (m / zeros as f64).ln() } else { raw };
        e.round() as u64
    }

    /// The serialized form: the set registers in index order while that is shorter, else all.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let set: Vec<(u16, u8)> = if self.dense.is_empty() {
            let mut pairs = self.sparse.clone();
            pairs.sort_unstable();
            // Sorted by index then rank: the last of each index is its highest rank.
            let mut set: Vec<(u16, u8)> = Vec::with_capacity(pairs.len());
            for e in pairs {
                let (i, r) = ((e >> 8) as u16, e as u8);
                match set.last_mut() {
                    Some(last) if last.0 == i => last.1 = r,
                    _ => set.push((i, r)),
                }
            }
            set
        } else {
            self.dense.iter().enumerate().filter(|(_, r)| **r > 0).map(|(i, &r)| (i as u16, r)).collect()
        };
        if set.len() * 3 < M {
            let mut out = Vec::with_capacity(1 + set.len() * 3);
            out.push(SPARSE);
            for (i, r) in set {
                out.extend_from_slice(&i.to_le_bytes());
                out.push(r);
            }
            out
        } else {
            let mut out = Vec::with_capacity(1 + M);
            out.push(DENSE);
            out.extend_from_slice(&self.registers());
            out
        }
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> anyhow::Result<Sketch> {
        match bytes.split_first() {
            Some((&SPARSE, rest)) if rest.len() % 3 == 0 => {
                let mut sketch = Sketch::default();
                for entry in rest.chunks_exact(3) {
                    let i = u16::from_le_bytes([entry[0], entry[1]]);
                    if usize::from(i) >= M {
                        anyhow::bail!("sketch register {i} out of range");
                    }
                    sketch.set(u32::from(i), entry[2]);
                }
                Ok(sketch)
            }
            Some((&DENSE, rest)) if rest.len() == M => Ok(Sketch { sparse: Vec::new(), dense: rest.to_vec() }),
            _ => anyhow::bail!("not a fingerprint sketch ({} bytes)", bytes.len()),
        }
    }
}

impl PartialEq for Sketch {
    fn eq(&self, other: &Sketch) -> bool {
        self.registers() == other.registers()
    }
}

impl Eq for Sketch {}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(range: std::ops::Range<u64>) -> Sketch {
        let mut s = Sketch::default();
        // Sequential values: the mix has to spread them.
        range.for_each(|v| s.insert(v));
        s
    }

    #[test]
    fn small_counts_are_nearly_exact() {
        assert_eq!(Sketch::default().estimate(), 0);
        for n in [1_u64, 10, 100, 1000] {
            let e = of(0..n).estimate() as f64;
            assert!((e - n as f64).abs() <= (n as f64 * 0.02).max(1.0), "{n}: {e}");
        }
    }

    #[test]
    fn large_counts_are_within_a_few_percent() {
        for n in [10_000_u64, 100_000, 1_000_000] {
            let e = of(0..n).estimate() as f64;
            assert!((e / n as f64 - 1.0).abs() < 0.05, "{n}: {e}");
        }
    }

    #[test]
    fn repeats_and_merges_count_once() {
        let mut a = of(0..50_000);
        let b = of(25_000..75_000);
        let once = of(0..75_000);
        a.merge(&b);
        assert_eq!(a, once);
        let mut twice = of(0..75_000);
        twice.merge(&of(0..75_000));
        assert_eq!(twice.estimate(), once.estimate());
    }

    /// The pairs kept for a few games give the bytes and estimate the array would.
    #[test]
    fn pairs_and_array_agree() {
        for n in [1_u64, 300, 1100, 5000] {
            let pairs = of(0..n);
            let mut array = of(0..n);
            array.densify();
            assert_eq!(pairs.to_bytes(), array.to_bytes(), "{n}");
            assert_eq!(pairs.estimate(), array.estimate(), "{n}");
            let mut merged = of(0..n / 2);
            merged.merge(&of(n / 2..n));
            assert_eq!(merged.to_bytes(), array.to_bytes(), "{n}");
        }
    }

    #[test]
    fn bytes_round_trip_sparse_and_dense() {
        for s in [Sketch::default(), of(0..10), of(0..100_000)] {
            let bytes = s.to_bytes();
            let back = Sketch::from_bytes(&bytes).unwrap();
            assert_eq!(back.estimate(), s.estimate());
            assert_eq!(back.to_bytes(), bytes);
        }
        assert!(of(0..10).to_bytes().len() <= 31);
        assert_eq!(of(0..100_000).to_bytes().len(), 1 + M);
        assert!(Sketch::from_bytes(&[9]).is_err());
    }
}
