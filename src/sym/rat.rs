//! [`Rat`], the exact rational coefficients of the forms: `i128` numerator and denominator,
//! reduced, every operation checked (an overflow is `None`, never a rounding).

use std::cmp::Ordering;

/// A rational number `num / den`, reduced, `den > 0`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Rat {
    pub num: i128,
    pub den: i128,
}

impl Rat {
    pub const ZERO: Rat = Rat { num: 0, den: 1 };
    pub const ONE: Rat = Rat { num: 1, den: 1 };

    pub fn int(v: i128) -> Rat {
        Rat { num: v, den: 1 }
    }

    /// `num / den` reduced; `None` for `den == 0` or past `i128`.
    pub fn new(num: i128, den: i128) -> Option<Rat> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1);
        let (mut n, mut d) = (num / g as i128, den / g as i128);
        if d < 0 {
            n = n.checked_neg()?;
            d = d.checked_neg()?;
        }
        Some(Rat { num: n, den: d })
    }

    pub fn add(self, o: Rat) -> Option<Rat> {
        if self.den == 1 && o.den == 1 {
            return Some(Rat::int(self.num.checked_add(o.num)?));
        }
        let g = gcd(self.den as u128, o.den as u128) as i128;
        let (a, b) = (self.den / g, o.den / g);
        let num = self
            .num
            .checked_mul(b)?
            .checked_add(o.num.checked_mul(a)?)?;
        Rat::new(num, self.den.checked_mul(b)?)
    }

    pub fn neg(self) -> Option<Rat> {
        Some(Rat {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    pub fn sub(self, o: Rat) -> Option<Rat> {
        self.add(o.neg()?)
    }

    pub fn mul(self, o: Rat) -> Option<Rat> {
        if self.den == 1 && o.den == 1 {
            return Some(Rat::int(self.num.checked_mul(o.num)?));
        }
        // Cross-reduce first, so that products stay small.
        let g1 = gcd(self.num.unsigned_abs(), o.den as u128).max(1) as i128;
        let g2 = gcd(o.num.unsigned_abs(), self.den as u128).max(1) as i128;
        let num = (self.num / g1).checked_mul(o.num / g2)?;
        let den = (self.den / g2).checked_mul(o.den / g1)?;
        Rat::new(num, den)
    }

    pub fn recip(self) -> Option<Rat> {
        Rat::new(self.den, self.num)
    }

    pub fn div(self, o: Rat) -> Option<Rat> {
        self.mul(o.recip()?)
    }

    pub fn is_int(self) -> bool {
        self.den == 1
    }

    /// Rounded toward negative infinity.
    pub fn floor(self) -> i128 {
        self.num.div_euclid(self.den)
    }

    pub fn pow(self, e: i32) -> Option<Rat> {
        let base = if e < 0 { self.recip()? } else { self };
        let mut out = Rat::ONE;
        for _ in 0..e.unsigned_abs() {
            out = out.mul(base)?;
        }
        Some(out)
    }
}

impl Ord for Rat {
    /// Exact, with no product that could overflow: compare the floors, then the reciprocals of
    /// the fractional parts (a continued fraction).
    fn cmp(&self, o: &Rat) -> Ordering {
        if self.den == 1 && o.den == 1 {
            return self.num.cmp(&o.num);
        }
        let (qa, ra) = (self.num.div_euclid(self.den), self.num.rem_euclid(self.den));
        let (qb, rb) = (o.num.div_euclid(o.den), o.num.rem_euclid(o.den));
        if qa != qb {
            return qa.cmp(&qb);
        }
        match (ra == 0, rb == 0) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => Rat {
                num: o.den,
                den: rb,
            }
            .cmp(&Rat {
                num: self.den,
                den: ra,
            }),
        }
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, o: &Rat) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
