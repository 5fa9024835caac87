// SPDX-License-Identifier: GPL-2.0
/*
 * The request path: every read or write is mapped through the device's
 * emulated IOMMU (iommu.c), its data copied by the "device" through the
 * translations, then unmapped, all before the request completes, as a
 * driver does in strict mode.  With the IOMMU off the copy goes straight
 * to the request's pages.
 */
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include "sl_iommu.h"

/* Copy @len bytes between @page at @off and the store at byte @pos. */
static void slb_copy(struct slb_dev *dev, struct page *page,
		     unsigned int off, unsigned int len, u64 pos, bool write)
{
	while (len) {
		struct page *store = dev->store[pos >> PAGE_SHIFT];
		unsigned int store_off = offset_in_page(pos);
		unsigned int n = min_t(unsigned int, len,
				       PAGE_SIZE - store_off);

		if (write)
			memcpy_page(store, store_off, page, off, n);
		else
			memcpy_page(page, off, store, store_off, n);
		pos += n;
		off += n;
		len -= n;
	}
}

/*
 * The device's side of the transfer: segment i of the request is at
 * device address ((map->pfn + i) << PAGE_SHIFT) + its offset, and every
 * byte goes through a translation.  A fault fails the request.
 */
static blk_status_t slb_transfer(struct slb_dev *dev, struct request *rq,
				 const struct slb_mapping *map)
{
	bool write = rq_data_dir(rq) == WRITE;
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	struct req_iterator iter;
	struct bio_vec bvec;
	unsigned long i = 0;

	rq_for_each_segment(bvec, rq, iter) {
		struct page *page = bvec.bv_page;

		if (dev->mmu.ops) {
			unsigned long addr = ((map->pfn + i++) << PAGE_SHIFT) +
				bvec.bv_offset;

			/* The device writes memory on a read request. */
			page = slb_iommu_translate(&dev->mmu, addr, !write);
			if (!page)
				return BLK_STS_IOERR;
		}
		slb_copy(dev, page, bvec.bv_offset, bvec.bv_len, pos, write);
		pos += bvec.bv_len;
	}
	return BLK_STS_OK;
}

static blk_status_t slb_fail(struct slb_dev *dev, struct request *rq,
			     blk_status_t status)
{
	atomic_long_inc(&dev->io_errors);
	blk_mq_start_request(rq);
	blk_mq_end_request(rq, status);
	return BLK_STS_OK;
}

static blk_status_t slb_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct slb_dev *dev = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct slb_mapping map = { 0 };
	blk_status_t status;

	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		/* RAM has no cache to flush. */
		blk_mq_start_request(rq);
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	default:
		dev_err_ratelimited(disk_to_dev(dev->disk),
				    "unsupported operation %d\n", req_op(rq));
		return slb_fail(dev, rq, BLK_STS_NOTSUPP);
	}
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) > get_capacity(dev->disk)) {
		dev_err_ratelimited(disk_to_dev(dev->disk),
				    "I/O past the end: sector %llu + %u of %llu\n",
				    (unsigned long long)blk_rq_pos(rq),
				    blk_rq_sectors(rq),
				    (unsigned long long)get_capacity(dev->disk));
		return slb_fail(dev, rq, BLK_STS_IOERR);
	}
	if (dev->mmu.ops) {
		int ret = slb_iommu_map(&dev->mmu, rq, &map);

		/* Out of memory or IOVA space: blk-mq tries again later. */
		if (ret == -ENOMEM || ret == -ENOSPC)
			return BLK_STS_RESOURCE;
		if (ret)
			return slb_fail(dev, rq, BLK_STS_IOERR);
	}
	blk_mq_start_request(rq);
	status = slb_transfer(dev, rq, &map);
	if (dev->mmu.ops)
		slb_iommu_unmap(&dev->mmu, &map);
	if (status)
		atomic_long_inc(&dev->io_errors);
	blk_mq_end_request(rq, status);
	return BLK_STS_OK;
}

const struct blk_mq_ops slb_mq_ops = {
	.queue_rq = slb_queue_rq,
};
