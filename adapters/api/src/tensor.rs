//! Host tensors: the values passed to and returned by adapters.

use crate::{AdapterError, DType, Element, ErrorKind};

/// A strided view over a little-endian host buffer.
///
/// `strides` and `offset` count elements, not bytes, and strides may be zero (broadcast) or
/// negative (reversed views), so transposed and sliced views are expressible without copying.
/// Axis names are optional, one per axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
    names: Option<Vec<Option<String>>>,
    data: Vec<u8>,
}

impl Tensor {
    /// A contiguous tensor holding `values` in row-major order.
    pub fn from_slice<T: Element>(values: &[T], shape: &[usize]) -> Result<Tensor, AdapterError> {
        let mut data = Vec::with_capacity(values.len() * T::DTYPE.size());
        for &v in values {
            v.write_le(&mut data);
        }
        Tensor::from_bytes(T::DTYPE, shape, data)
    }

    /// A contiguous tensor over raw little-endian bytes.
    pub fn from_bytes(dtype: DType, shape: &[usize], data: Vec<u8>) -> Result<Tensor, AdapterError> {
        let numel = checked_numel(shape)?;
        if data.len() != numel * dtype.size() {
            return Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!(
                    "{} bytes do not hold a {dtype} tensor of shape {shape:?} ({} bytes)",
                    data.len(),
                    numel * dtype.size()
                ),
            ));
        }
        Ok(Tensor {
            dtype,
            strides: contiguous_strides(shape),
            shape: shape.to_vec(),
            offset: 0,
            names: None,
            data,
        })
    }

    /// A contiguous tensor of zero bytes (`0`, `+0.0`, `false`).
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Tensor, AdapterError> {
        let numel = checked_numel(shape)?;
        Tensor::from_bytes(dtype, shape, vec![0; numel * dtype.size()])
    }

    /// A view of the same buffer with another shape, strides and offset (in elements).
    /// Fails if any element of the view would fall outside the buffer.
    pub fn view(&self, shape: &[usize], strides: &[isize], offset: usize) -> Result<Tensor, AdapterError> {
        if shape.len() != strides.len() {
            return Err(AdapterError::new(
                ErrorKind::Rank,
                format!("shape {shape:?} and strides {strides:?} differ in rank"),
            ));
        }
        let buffer_len = self.data.len() / self.dtype.size();
        let numel = checked_numel(shape)?;
        if numel > 0 {
            // In i128, which holds any reach: the extents multiply to at most usize::MAX, so
            // the (n - 1) × |stride| of all axes add up to less than 2^127.
            let (mut low, mut high) = (offset as i128, offset as i128);
            for (&n, &s) in shape.iter().zip(strides) {
                let reach = (n as i128 - 1) * s as i128;
                if reach < 0 {
                    low += reach;
                } else {
                    high += reach;
                }
            }
            if low < 0 || high >= buffer_len as i128 {
                return Err(AdapterError::new(
                    ErrorKind::OutOfRange,
                    format!(
                        "view shape {shape:?} strides {strides:?} offset {offset} reaches outside a buffer of {buffer_len} elements"
                    ),
                ));
            }
        }
        Ok(Tensor {
            dtype: self.dtype,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset,
            names: None,
            data: self.data.clone(),
        })
    }

    /// Attaches one optional name per axis.
    pub fn with_names(mut self, names: Vec<Option<String>>) -> Result<Tensor, AdapterError> {
        if names.len() != self.shape.len() {
            return Err(AdapterError::new(
                ErrorKind::Rank,
                format!("{} names for a rank-{} tensor", names.len(), self.shape.len()),
            ));
        }
        self.names = Some(names);
        Ok(self)
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Strides in elements.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// Offset of the first element in the buffer, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Axis names, if any were attached.
    pub fn names(&self) -> Option<&[Option<String>]> {
        self.names.as_deref()
    }

    /// The whole underlying buffer (not only the viewed elements).
    pub fn buffer(&self) -> &[u8] {
        &self.data
    }

    /// The number of elements in the view.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// True when the view is row-major, dense and starts at the buffer's beginning.
    pub fn is_contiguous(&self) -> bool {
        self.offset == 0
            && self.strides == contiguous_strides(&self.shape)
            && self.data.len() == self.numel() * self.dtype.size()
    }

    /// The contiguous bytes of the view, if [`Tensor::is_contiguous`].
    pub fn contiguous_bytes(&self) -> Option<&[u8]> {
        self.is_contiguous().then_some(&self.data[..])
    }

    /// Mutable contiguous bytes of the view, if [`Tensor::is_contiguous`].
    pub fn contiguous_bytes_mut(&mut self) -> Option<&mut [u8]> {
        if self.is_contiguous() { Some(&mut self.data[..]) } else { None }
    }

    /// Buffer positions (in elements) of the view's elements, in row-major logical order.
    pub fn element_positions(&self) -> impl Iterator<Item = usize> + '_ {
        let rank = self.shape.len();
        let total = self.numel();
        let mut index = vec![0usize; rank];
        let mut position = self.offset as isize;
        (0..total).map(move |i| {
            if i > 0 {
                // Wrapping: a step along an axis of size 1 with a huge stride may leave isize's
                // range before it is taken back; every position yielded is in the buffer.
                for axis in (0..rank).rev() {
                    index[axis] += 1;
                    position = position.wrapping_add(self.strides[axis]);
                    if index[axis] < self.shape[axis] {
                        break;
                    }
                    position =
                        position.wrapping_sub(self.strides[axis].wrapping_mul(self.shape[axis] as isize));
                    index[axis] = 0;
                }
            }
            position as usize
        })
    }

    /// A contiguous copy of the view (names are kept).
    pub fn to_contiguous(&self) -> Tensor {
        if self.is_contiguous() {
            return self.clone();
        }
        let size = self.dtype.size();
        let mut data = Vec::with_capacity(self.numel() * size);
        for p in self.element_positions() {
            data.extend_from_slice(&self.data[p * size..(p + 1) * size]);
        }
        Tensor {
            dtype: self.dtype,
            strides: contiguous_strides(&self.shape),
            shape: self.shape.clone(),
            offset: 0,
            names: self.names.clone(),
            data,
        }
    }

    /// The elements in row-major logical order, or a dtype-mismatch error.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, AdapterError> {
        if self.dtype != T::DTYPE {
            return Err(AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!("tensor holds {}, not {}", self.dtype, T::DTYPE),
            ));
        }
        let size = self.dtype.size();
        Ok(self.element_positions().map(|p| T::read_le(&self.data[p * size..(p + 1) * size])).collect())
    }

    /// The raw bits of every element in logical order, zero-extended to `u64`. A `c128`
    /// element (16 bytes) does not fit: it gives its real part's bits; read complex tensors
    /// with [`Tensor::to_pairs`].
    pub fn to_bits(&self) -> Vec<u64> {
        let size = self.dtype.size();
        let kept = size.min(8);
        self.element_positions()
            .map(|p| {
                let mut raw = [0u8; 8];
                raw[..kept].copy_from_slice(&self.data[p * size..p * size + kept]);
                u64::from_le_bytes(raw)
            })
            .collect()
    }

    /// A contiguous tensor from raw element bits (the low `dtype.size()` bytes of each). A
    /// `c128` element does not fit a `u64`: that is an error (use [`Tensor::from_pairs`]).
    pub fn from_bits(dtype: DType, shape: &[usize], bits: &[u64]) -> Result<Tensor, AdapterError> {
        let size = dtype.size();
        if size > 8 {
            return Err(AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!(
                    "a {dtype} element does not fit 64 bits; build it from its parts (Tensor::from_pairs)"
                ),
            ));
        }
        let mut data = Vec::with_capacity(bits.len() * size);
        for b in bits {
            data.extend_from_slice(&b.to_le_bytes()[..size]);
        }
        Tensor::from_bytes(dtype, shape, data)
    }

    /// The bits of the real and imaginary parts of every element of a complex tensor, in
    /// logical order; an error for a real dtype.
    pub fn to_pairs(&self) -> Result<Vec<[u64; 2]>, AdapterError> {
        let part = self.complex_part()?.size();
        let size = self.dtype.size();
        let read = |bytes: &[u8]| {
            let mut raw = [0u8; 8];
            raw[..part].copy_from_slice(bytes);
            u64::from_le_bytes(raw)
        };
        Ok(self
            .element_positions()
            .map(|p| {
                let e = &self.data[p * size..(p + 1) * size];
                [read(&e[..part]), read(&e[part..])]
            })
            .collect())
    }

    /// A contiguous complex tensor from the bits of each element's real and imaginary parts
    /// (the low bytes of each, as many as the part's dtype has); an error for a real dtype.
    pub fn from_pairs(dtype: DType, shape: &[usize], pairs: &[[u64; 2]]) -> Result<Tensor, AdapterError> {
        let part = dtype
            .component()
            .ok_or_else(|| {
                AdapterError::new(ErrorKind::DTypeMismatch, format!("{dtype} is not a complex dtype"))
            })?
            .size();
        let mut data = Vec::with_capacity(pairs.len() * dtype.size());
        for [re, im] in pairs {
            data.extend_from_slice(&re.to_le_bytes()[..part]);
            data.extend_from_slice(&im.to_le_bytes()[..part]);
        }
        Tensor::from_bytes(dtype, shape, data)
    }

    /// The dtype of this complex tensor's parts, or a dtype-mismatch error.
    fn complex_part(&self) -> Result<DType, AdapterError> {
        self.dtype.component().ok_or_else(|| {
            AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!("tensor holds {}, not a complex dtype", self.dtype),
            )
        })
    }
}

/// Row-major strides, in elements, for `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = 1isize;
    for (stride, &n) in strides.iter_mut().zip(shape).rev() {
        *stride = step;
        step *= n.max(1) as isize;
    }
    strides
}

fn checked_numel(shape: &[usize]) -> Result<usize, AdapterError> {
    shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n)).ok_or_else(|| {
        AdapterError::new(ErrorKind::ShapeMismatch, format!("shape {shape:?} overflows usize"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_view_reads_in_logical_order() {
        let t = Tensor::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
        assert!(t.is_contiguous());
        let tt = t.view(&[3, 2], &[1, 3], 0).unwrap();
        assert!(!tt.is_contiguous());
        assert_eq!(tt.to_vec::<i32>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
        assert_eq!(tt.to_contiguous().to_vec::<i32>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn negative_and_zero_strides() {
        let t = Tensor::from_slice(&[1u8, 2, 3], &[3]).unwrap();
        let rev = t.view(&[3], &[-1], 2).unwrap();
        assert_eq!(rev.to_vec::<u8>().unwrap(), vec![3, 2, 1]);
        let bcast = t.view(&[2, 3], &[0, 1], 0).unwrap();
        assert_eq!(bcast.to_vec::<u8>().unwrap(), vec![1, 2, 3, 1, 2, 3]);
    }

    #[test]
    fn views_outside_the_buffer_are_errors() {
        let t = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        assert_eq!(t.view(&[3], &[1], 0).unwrap_err().kind, ErrorKind::OutOfRange);
        assert_eq!(t.view(&[2], &[-1], 0).unwrap_err().kind, ErrorKind::OutOfRange);
        assert_eq!(t.view(&[2], &[1, 1], 0).unwrap_err().kind, ErrorKind::Rank);
        assert!(t.view(&[0], &[5], 9).is_ok(), "an empty view touches nothing");
    }

    /// Found while writing the fuzz target `frame` (fuzz/; a worker's result with these strides
    /// reaches `view`): the reach (n - 1) × stride overflowed isize, a panic with overflow
    /// checks and, wrapped, a view of 3 elements 2^63 apart accepted over a buffer of 4.
    #[test]
    fn views_whose_reach_overflows_isize_are_errors() {
        let t = Tensor::from_slice(&[1u8, 2, 3, 4], &[4]).unwrap();
        for (shape, strides) in [([3], [isize::MIN]), ([3], [isize::MAX]), ([5], [isize::MIN / 2])] {
            assert_eq!(t.view(&shape, &strides, 0).unwrap_err().kind, ErrorKind::OutOfRange, "{strides:?}");
        }
        assert_eq!(t.view(&[2, 2], &[isize::MAX, 1], 3).unwrap_err().kind, ErrorKind::OutOfRange);
    }

    /// Found with the one above: stepping past an axis of size 1 with a huge stride overflowed
    /// isize (a panic where overflow checks are on, as in debug builds and the fuzz targets).
    #[test]
    fn size_one_axes_with_huge_strides_are_read() {
        let t = Tensor::from_slice(&[1u8, 2, 3], &[3]).unwrap();
        let v = t.view(&[3, 1], &[1, isize::MAX], 0).unwrap();
        assert_eq!(v.to_vec::<u8>().unwrap(), [1, 2, 3]);
        assert_eq!(v.to_contiguous().to_bits(), [1, 2, 3]);
    }

    #[test]
    fn byte_length_is_checked() {
        let err = Tensor::from_bytes(DType::F32, &[2], vec![0; 7]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ShapeMismatch);
    }

    #[test]
    fn bits_round_trip() {
        let bits = [0x3c00u64, 0x8000, 0x7e01];
        let t = Tensor::from_bits(DType::F16, &[3], &bits).unwrap();
        assert_eq!(t.to_bits(), bits);
        assert_eq!(t.to_vec::<half::f16>().unwrap()[0], half::f16::ONE);
    }

    #[test]
    fn complex_parts_round_trip() {
        let pairs = [[0x3ff0_0000_0000_0000u64, 0x8000_0000_0000_0000], [0x7ff8_0000_0000_0001, 1]];
        let t = Tensor::from_pairs(DType::C128, &[2], &pairs).unwrap();
        assert_eq!(t.to_pairs().unwrap(), pairs);
        assert_eq!(t.to_vec::<crate::Complex<f64>>().unwrap()[0], crate::Complex::new(1.0, -0.0));
        let c = Tensor::from_slice(&[crate::Complex::new(2.0f32, -1.0)], &[1]).unwrap();
        assert_eq!(c.to_pairs().unwrap(), [[2.0f32.to_bits() as u64, (-1.0f32).to_bits() as u64]]);
        assert_eq!(Tensor::from_bits(DType::C128, &[1], &[0]).unwrap_err().kind, ErrorKind::DTypeMismatch);
        assert_eq!(
            Tensor::from_pairs(DType::F32, &[1], &[[0, 0]]).unwrap_err().kind,
            ErrorKind::DTypeMismatch
        );
        assert!(Tensor::from_slice(&[1.0f32], &[1]).unwrap().to_pairs().is_err());
    }

    #[test]
    fn rank_zero_has_one_element() {
        let t = Tensor::from_slice(&[7i64], &[]).unwrap();
        assert_eq!(t.numel(), 1);
        assert_eq!(t.to_vec::<i64>().unwrap(), vec![7]);
    }
}
