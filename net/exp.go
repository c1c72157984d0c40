package net

import "math"

// exp returns e**x as math.Exp does, within 1.5 units in the last place,
// computed the same way on every machine. math.Exp is not: on amd64 it
// runs assembly whose polynomial uses fused multiply-adds when the CPU has
// them and separate ones when it does not, arm64 has assembly of its own
// and other architectures run Go code, and their results differ in the
// last bit for some arguments. A log-normal latency ([LogNormal]) rounds
// Spread*exp(...) to whole microseconds, so a last-bit difference can move
// a delay, and with it a run's trace, only when the product lies within a
// few 1e-16 of a rounding boundary; this function removes even that from
// the machine-independence of a run. It is also twice as fast (BenchmarkExp).
//
// Method (Tang's table-driven exp): x = k*ln2/256 + r with k an integer
// and |r| <= ln2/512; e**x = 2**(k/256) * e**r, with 2**(k/256) from a
// 256-entry table scaled by a power of two and e**r - 1 from its Taylor
// polynomial of degree 4 (the first term left out, r**5/120, is below
// 4e-17 relative). Every product is converted explicitly, so no compiler
// may fuse it with the next addition (the Go specification allows fusion
// otherwise; arm64 compilers do it). Arguments beyond +-700, where the
// table's scaling would leave the normal range, go to math.Exp: a latency
// never gets there (Sigma is at most 5).
func exp(x float64) float64 {
	if !(x >= -700 && x <= 700) { // and NaN
		return math.Exp(x)
	}
	// kf = round(x*256/ln2), by the 1.5*2**52 shift: the sum's mantissa
	// holds the rounded integer, and subtracting the shift is exact.
	const shift = 0x1.8p52
	t := float64(x*expInvLn2N) + shift
	kf := t - shift
	k := int64(kf)
	// r = x - kf*ln2/256 in two parts (Cody and Waite): kf*expLn2NHi is
	// exact, since expLn2NHi has 21 trailing zero bits and |kf| < 2**18.
	r := x - float64(kf*expLn2NHi)
	r -= float64(kf * expLn2NLo)
	// p = e**r - 1.
	q := float64(r*(1.0/24)) + 1.0/6
	q = float64(r*q) + 0.5
	q = float64(r*q) + 1
	p := float64(r * q)
	// s = 2**(k/256): the table's 2**(j/256) with k>>8 added to its
	// exponent (k>>8 rounds toward minus infinity, j = k&255).
	s := math.Float64frombits(exp2Table[k&255] + uint64(k>>8)<<52)
	return s + float64(s*p)
}

const (
	expInvLn2N = 256 / math.Ln2
	// ln2/256 as a high part with trailing zeros and a low part: fdlibm's
	// ln2HI and ln2LO (0x3fe62e42fee00000, 0x3dea39ef35793c76) over 256.
	expLn2NHi = 6.93147180369123816490e-01 / 256
	expLn2NLo = 1.90821492927058770002e-10 / 256
)

// exp2Table[j] is 2**(j/256) rounded to the nearest float64 (its bits);
// TestExp2Table recomputes it with math/big.
var exp2Table = [256]uint64{
	0x3ff0000000000000, 0x3ff00b1afa5abcbf, 0x3ff0163da9fb3335, 0x3ff02168143b0281,
	0x3ff02c9a3e778061, 0x3ff037d42e11bbcc, 0x3ff04315e86e7f85, 0x3ff04e5f72f654b1,
	0x3ff059b0d3158574, 0x3ff0650a0e3c1f89, 0x3ff0706b29ddf6de, 0x3ff07bd42b72a836,
	0x3ff0874518759bc8, 0x3ff092bdf66607e0, 0x3ff09e3ecac6f383, 0x3ff0a9c79b1f3919,
	0x3ff0b5586cf9890f, 0x3ff0c0f145e46c85, 0x3ff0cc922b7247f7, 0x3ff0d83b23395dec,
	0x3ff0e3ec32d3d1a2, 0x3ff0efa55fdfa9c5, 0x3ff0fb66affed31b, 0x3ff1073028d7233e,
	0x3ff11301d0125b51, 0x3ff11edbab5e2ab6, 0x3ff12abdc06c31cc, 0x3ff136a814f204ab,
	0x3ff1429aaea92de0, 0x3ff14e95934f312e, 0x3ff15a98c8a58e51, 0x3ff166a45471c3c2,
	0x3ff172b83c7d517b, 0x3ff17ed48695bbc0, 0x3ff18af9388c8dea, 0x3ff1972658375d2f,
	0x3ff1a35beb6fcb75, 0x3ff1af99f8138a1c, 0x3ff1bbe084045cd4, 0x3ff1c82f95281c6b,
	0x3ff1d4873168b9aa, 0x3ff1e0e75eb44027, 0x3ff1ed5022fcd91d, 0x3ff1f9c18438ce4d,
	0x3ff2063b88628cd6, 0x3ff212be3578a819, 0x3ff21f49917ddc96, 0x3ff22bdda27912d1,
	0x3ff2387a6e756238, 0x3ff2451ffb82140a, 0x3ff251ce4fb2a63f, 0x3ff25e85711ece75,
	0x3ff26b4565e27cdd, 0x3ff2780e341ddf29, 0x3ff284dfe1f56381, 0x3ff291ba7591bb70,
	0x3ff29e9df51fdee1, 0x3ff2ab8a66d10f13, 0x3ff2b87fd0dad990, 0x3ff2c57e39771b2f,
	0x3ff2d285a6e4030b, 0x3ff2df961f641589, 0x3ff2ecafa93e2f56, 0x3ff2f9d24abd886b,
	0x3ff306fe0a31b715, 0x3ff31432edeeb2fd, 0x3ff32170fc4cd831, 0x3ff32eb83ba8ea32,
	0x3ff33c08b26416ff, 0x3ff3496266e3fa2d, 0x3ff356c55f929ff1, 0x3ff36431a2de883b,
	0x3ff371a7373aa9cb, 0x3ff37f26231e754a, 0x3ff38cae6d05d866, 0x3ff39a401b7140ef,
	0x3ff3a7db34e59ff7, 0x3ff3b57fbfec6cf4, 0x3ff3c32dc313a8e5, 0x3ff3d0e544ede173,
	0x3ff3dea64c123422, 0x3ff3ec70df1c5175, 0x3ff3fa4504ac801c, 0x3ff40822c367a024,
	0x3ff4160a21f72e2a, 0x3ff423fb2709468a, 0x3ff431f5d950a897, 0x3ff43ffa3f84b9d4,
	0x3ff44e086061892d, 0x3ff45c2042a7d232, 0x3ff46a41ed1d0057, 0x3ff4786d668b3237,
	0x3ff486a2b5c13cd0, 0x3ff494e1e192aed2, 0x3ff4a32af0d7d3de, 0x3ff4b17dea6db7d7,
	0x3ff4bfdad5362a27, 0x3ff4ce41b817c114, 0x3ff4dcb299fddd0d, 0x3ff4eb2d81d8abff,
	0x3ff4f9b2769d2ca7, 0x3ff508417f4531ee, 0x3ff516daa2cf6642, 0x3ff5257de83f4eef,
	0x3ff5342b569d4f82, 0x3ff542e2f4f6ad27, 0x3ff551a4ca5d920f, 0x3ff56070dde910d2,
	0x3ff56f4736b527da, 0x3ff57e27dbe2c4cf, 0x3ff58d12d497c7fd, 0x3ff59c0827ff07cc,
	0x3ff5ab07dd485429, 0x3ff5ba11fba87a03, 0x3ff5c9268a5946b7, 0x3ff5d84590998b93,
	0x3ff5e76f15ad2148, 0x3ff5f6a320dceb71, 0x3ff605e1b976dc09, 0x3ff6152ae6cdf6f4,
	0x3ff6247eb03a5585, 0x3ff633dd1d1929fd, 0x3ff6434634ccc320, 0x3ff652b9febc8fb7,
	0x3ff6623882552225, 0x3ff671c1c70833f6, 0x3ff68155d44ca973, 0x3ff690f4b19e9538,
	0x3ff6a09e667f3bcd, 0x3ff6b052fa75173e, 0x3ff6c012750bdabf, 0x3ff6cfdcddd47645,
	0x3ff6dfb23c651a2f, 0x3ff6ef9298593ae5, 0x3ff6ff7df9519484, 0x3ff70f7466f42e87,
	0x3ff71f75e8ec5f74, 0x3ff72f8286ead08a, 0x3ff73f9a48a58174, 0x3ff74fbd35d7cbfd,
	0x3ff75feb564267c9, 0x3ff77024b1ab6e09, 0x3ff780694fde5d3f, 0x3ff790b938ac1cf6,
	0x3ff7a11473eb0187, 0x3ff7b17b0976cfdb, 0x3ff7c1ed0130c132, 0x3ff7d26a62ff86f0,
	0x3ff7e2f336cf4e62, 0x3ff7f3878491c491, 0x3ff80427543e1a12, 0x3ff814d2add106d9,
	0x3ff82589994cce13, 0x3ff8364c1eb941f7, 0x3ff8471a4623c7ad, 0x3ff857f4179f5b21,
	0x3ff868d99b4492ed, 0x3ff879cad931a436, 0x3ff88ac7d98a6699, 0x3ff89bd0a478580f,
	0x3ff8ace5422aa0db, 0x3ff8be05bad61778, 0x3ff8cf3216b5448c, 0x3ff8e06a5e0866d9,
	0x3ff8f1ae99157736, 0x3ff902fed0282c8a, 0x3ff9145b0b91ffc6, 0x3ff925c353aa2fe2,
	0x3ff93737b0cdc5e5, 0x3ff948b82b5f98e5, 0x3ff95a44cbc8520f, 0x3ff96bdd9a7670b3,
	0x3ff97d829fde4e50, 0x3ff98f33e47a22a2, 0x3ff9a0f170ca07ba, 0x3ff9b2bb4d53fe0d,
	0x3ff9c49182a3f090, 0x3ff9d674194bb8d5, 0x3ff9e86319e32323, 0x3ff9fa5e8d07f29e,
	0x3ffa0c667b5de565, 0x3ffa1e7aed8eb8bb, 0x3ffa309bec4a2d33, 0x3ffa42c980460ad8,
	0x3ffa5503b23e255d, 0x3ffa674a8af46052, 0x3ffa799e1330b358, 0x3ffa8bfe53c12e59,
	0x3ffa9e6b5579fdbf, 0x3ffab0e521356eba, 0x3ffac36bbfd3f37a, 0x3ffad5ff3a3c2774,
	0x3ffae89f995ad3ad, 0x3ffafb4ce622f2ff, 0x3ffb0e07298db666, 0x3ffb20ce6c9a8952,
	0x3ffb33a2b84f15fb, 0x3ffb468415b749b1, 0x3ffb59728de5593a, 0x3ffb6c6e29f1c52a,
	0x3ffb7f76f2fb5e47, 0x3ffb928cf22749e4, 0x3ffba5b030a1064a, 0x3ffbb8e0b79a6f1f,
	0x3ffbcc1e904bc1d2, 0x3ffbdf69c3f3a207, 0x3ffbf2c25bd71e09, 0x3ffc06286141b33d,
	0x3ffc199bdd85529c, 0x3ffc2d1cd9fa652c, 0x3ffc40ab5fffd07a, 0x3ffc544778fafb22,
	0x3ffc67f12e57d14b, 0x3ffc7ba88988c933, 0x3ffc8f6d9406e7b5, 0x3ffca3405751c4db,
	0x3ffcb720dcef9069, 0x3ffccb0f2e6d1675, 0x3ffcdf0b555dc3fa, 0x3ffcf3155b5bab74,
	0x3ffd072d4a07897c, 0x3ffd1b532b08c968, 0x3ffd2f87080d89f2, 0x3ffd43c8eacaa1d6,
	0x3ffd5818dcfba487, 0x3ffd6c76e862e6d3, 0x3ffd80e316c98398, 0x3ffd955d71ff6075,
	0x3ffda9e603db3285, 0x3ffdbe7cd63a8315, 0x3ffdd321f301b460, 0x3ffde7d5641c0658,
	0x3ffdfc97337b9b5f, 0x3ffe11676b197d17, 0x3ffe264614f5a129, 0x3ffe3b333b16ee12,
	0x3ffe502ee78b3ff6, 0x3ffe653924676d76, 0x3ffe7a51fbc74c83, 0x3ffe8f7977cdb740,
	0x3ffea4afa2a490da, 0x3ffeb9f4867cca6e, 0x3ffecf482d8e67f1, 0x3ffee4aaa2188510,
	0x3ffefa1bee615a27, 0x3fff0f9c1cb6412a, 0x3fff252b376bba97, 0x3fff3ac948dd7274,
	0x3fff50765b6e4540, 0x3fff6632798844f8, 0x3fff7bfdad9cbe14, 0x3fff91d802243c89,
	0x3fffa7c1819e90d8, 0x3fffbdba3692d514, 0x3fffd3c22b8f71f1, 0x3fffe9d96b2a23d9,
}
